// What a command does before it exits: interrupted (src/cli/interrupt.ts), the journal's writes
// waiting for their group commit are committed, and nothing more is recorded (so nothing more is
// sent); done (src/cli/base-command.ts), a shared journal's connection is ended, the server told.
// A module of its own, so neither loads the journal's code.

const hooks = new Set<() => Promise<void>>();
const atEnd = new Set<() => Promise<void>>();

/** `end` runs once the command is done (its output printed). */
export function atCommandEnd(end: () => Promise<void>): void {
  atEnd.add(end);
}

/** Runs every end hook (never throws: the command's work is done). */
export async function endOfCommand(): Promise<void> {
  const ends = [...atEnd];
  atEnd.clear();
  await Promise.allSettled(ends.map((end) => end()));
}

/** `stop` runs when the command is interrupted, before it exits. */
export function beforeInterruptedExit(stop: () => Promise<void>): void {
  hooks.add(stop);
}

/** Runs every hook, for at most `ms` (a shared journal's server that does not answer does not keep the process). */
export async function stopBeforeExit(ms: number): Promise<void> {
  if (hooks.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...hooks].map((stop) => stop())),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
