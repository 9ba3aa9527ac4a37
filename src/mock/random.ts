// Ids, secrets and digits. The seeded start draws from a deterministic stream (same seed,
// same merchant, keys and products); everything after it draws from node:crypto.
import { createHash, randomBytes } from 'node:crypto';
import { ulid } from 'ulid';

export interface RandomSource {
  bytes(n: number): Buffer;
}

export const cryptoRandom: RandomSource = { bytes: (n) => randomBytes(n) };

/** SHA-256 in counter mode over the seed: reproducible, good enough for test fixtures. */
export function seededRandom(seed: number): RandomSource {
  let counter = 0;
  let pool = Buffer.alloc(0);
  return {
    bytes(n: number): Buffer {
      while (pool.length < n) {
        const block = createHash('sha256').update(`cardctl-mock:${seed}:${counter++}`).digest();
        pool = Buffer.concat([pool, block]);
      }
      const out = pool.subarray(0, n);
      pool = pool.subarray(n);
      return Buffer.from(out);
    },
  };
}

/** A 26-character ULID whose time part is `timeMs`. */
export function newId(rand: RandomSource, timeMs: number): string {
  const prng = (): number => rand.bytes(4).readUInt32BE(0) / 0x1_0000_0000;
  return ulid(Math.max(0, Math.floor(timeMs)), prng);
}

/** 32 random bytes, base64: the 44-character secret shape of the spec. */
export function newSecret(rand: RandomSource): string {
  return rand.bytes(32).toString('base64');
}

export function randomDigits(rand: RandomSource, count: number): string {
  let out = '';
  for (const b of rand.bytes(count)) out += String(b % 10);
  return out;
}

export function randomHex(rand: RandomSource, bytes: number): string {
  return rand.bytes(bytes).toString('hex');
}

/** A random seed for a start without --seed, kept in the state so that reset returns to the same start. */
export function randomSeed(): number {
  return randomBytes(4).readUInt32BE(0) & 0x7fffffff;
}
