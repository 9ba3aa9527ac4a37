// Settings of V8's heap for the long commands that stream a million records (a batch, `ops list
// --all`): process-wide flags, set when such a command starts.
//
// A batch is long work done row after row (a million rows' rerun runs for half a minute), and
// most of what a row allocates dies young, but not all: what outlives two young collections is
// moved to V8's old generation and dies there. V8 lets the old generation grow, after each full
// collection, by a factor of up to 4 of what was alive before the next one (more when its
// collections are fast), so that garbage piled up: a million-row rerun peaked at 143-151 MiB,
// 20-30 MiB of it collectable. A growing factor of 1.5 holds it near what is alive: 120 MiB,
// for a few more full collections (bench/README.md, "Batches"). The flag is process-wide, and V8 reads it at every full collection, so setting it
// at the start of a batch takes effect; it exists on every Node line cardctl supports (22 to 26).
// The young generation's own size cannot be set once the process runs (V8 reads
// --min-semi-space-size at start-up); only how it grows: boundedYoungGeneration.

/** node:v8, loaded when a long command asks (a single command, which imports this module with its batch code, loads none of it). */
const v8 = () => process.getBuiltinModule('node:v8');
const setFlagsFromString = (flags: string): void => v8().setFlagsFromString(flags);

export const HEAP_GROWING_PERCENT = 50;

/** From now on, V8's old generation may grow to 1.5 times what its last full collection kept. */
export function keepOldGenerationTight(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * For a stream of records that each die young (`ops list --all --ndjson`): V8 grows its young
 * generation while objects survive a scavenge, and a million folded operations, each alive a
 * page long, grew it (and the process) to 276 MiB; kept at its first size, and the old
 * generation tight, the same export peaks at 87 MiB in the same time (bench/README.md).
 */
export function keepHeapSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  keepOldGenerationTight();
}

/** The young generation a batch lets V8 grow to (new space's size as V8 reports it), in bytes (bench/README.md, "The journal on SQLite"). */
export const BATCH_YOUNG_BYTES = 16 * 1024 * 1024;

/**
 * For a batch: V8 doubles its young generation while objects survive a scavenge (a million-row
 * rerun's objects die young, but at its first size the scavenges took a quarter of the run);
 * let it grow to BATCH_YOUNG_BYTES, then hold it there. `grown()`, called once a chunk of rows,
 * stops the growth once new space reached that size. The old generation is kept tight.
 */
export function boundedYoungGeneration(limit = BATCH_YOUNG_BYTES): { grown: () => void } {
  setFlagsFromString('--semi-space-growth-factor=2');
  let held = false;
  return {
    grown: () => {
      if (held) return;
      const young = v8()
        .getHeapSpaceStatistics()
        .find((s) => s.space_name === 'new_space');
      if (young && young.space_size < limit) return;
      setFlagsFromString('--semi-space-growth-factor=1');
      held = true;
    },
  };
}
