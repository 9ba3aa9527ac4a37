// What the fuzz tests of the API (test/mock/fuzz.test.ts) and of the control plane
// (test/mock/control-fuzz.test.ts) share: a seeded PRNG (one stream per request, so any single
// request can be replayed), deeply nested JSON, a pool that keeps N requests in flight, and how a
// failure is shown.

/** mulberry32: small, fast, seeded. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
export type Rng = ReturnType<typeof prng>;

/** The PRNG of request number i of a run: its own stream, so that request alone can be replayed. */
export const requestRng = (seed: number, i: number): Rng => prng(seed ^ Math.imul(i + 1, 0x9e3779b1));

/** The run's seed: FUZZ_SEED from the environment replays another run. */
export const fuzzSeed = (fallback: number): number => Number(process.env.FUZZ_SEED ?? fallback);

/** `[[[...]]]`, depth levels deep. */
export const deepArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/**
 * Requests 0 to total-1, inFlight at a time, each by one(i); the outcomes in the order they
 * finished. Stops taking new ones once `going()` is false (the mock under test died).
 */
export async function inFlight<T>(
  total: number,
  width: number,
  one: (i: number) => Promise<T>,
  going: () => boolean = () => true,
): Promise<T[]> {
  const outcomes: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total && going()) outcomes.push(await one(next++));
  };
  await Promise.all(Array.from({ length: width }, worker));
  return outcomes;
}

export interface Outcome {
  desc: string;
  status?: number;
  json?: boolean;
  error?: string;
}

/** The first ten outcomes of a list, one a line: what was sent and what came back. */
export const show = (xs: Outcome[]): string =>
  xs
    .slice(0, 10)
    .map((o) => `${o.desc} -> ${o.status ?? o.error}`)
    .join('\n');
