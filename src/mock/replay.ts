// Applies saved batches of changes to a plain state (the journal's `Op`s, src/mock/persistence.ts).
// Pure and import-free: the main thread (loading) and the compaction worker both run it.

/** One saved change: set or delete a record, replace a collection, the root part, events, or everything. */
export type Op =
  | ['s', string, string, unknown]
  | ['d', string, string]
  | ['c', string, unknown]
  | ['r', Record<string, unknown>]
  | ['e', unknown[]]
  | ['ef', number | null]
  | ['all', unknown]
  /** everything, already serialized (a snapshot restored from its JSON text) */
  | ['allj', string];

export class UnknownChangeError extends Error {}

type Ev = { seq: number };
const lastSeq = (events: Ev[]): number => (events.length ? events[events.length - 1]!.seq : -Infinity);

/** The state after `batches`; throws UnknownChangeError (with the batch's index) on an entry it does not know. */
export function applyBatches(start: Record<string, unknown>, batches: readonly unknown[]): Record<string, unknown> {
  let state = start;
  batches.forEach((batch, index) => {
    for (const op of batch as unknown[][]) {
      if (!Array.isArray(op)) throw Object.assign(new UnknownChangeError('a change that is not a list'), { index });
      const kind = op[0];
      if (kind === 's') ((state[op[1] as string] ??= {}) as Record<string, unknown>)[op[2] as string] = op[3];
      else if (kind === 'd') delete (state[op[1] as string] as Record<string, unknown> | undefined)?.[op[2] as string];
      else if (kind === 'c') state[op[1] as string] = op[2];
      else if (kind === 'r') Object.assign(state, op[1]);
      else if (kind === 'e') {
        const events = state.events as Ev[];
        for (const e of op[1] as Ev[]) if (e.seq > lastSeq(events)) events.push(e);
      } else if (kind === 'ef')
        state.events = op[1] === null ? [] : (state.events as Ev[]).filter((e) => e.seq >= (op[1] as number));
      else if (kind === 'all') state = op[1] as Record<string, unknown>;
      else throw Object.assign(new UnknownChangeError(`an unknown change ${JSON.stringify(kind)}`), { index });
    }
  });
  return state;
}
