// stdout closed by its reader (`cardctl customers list --all --ndjson | head -1`): node reports
// EPIPE as an 'error' event on process.stdout, and with no listener that is a stack trace and
// exit 1. The reader has all it wanted, so cardctl stops quietly:
// - no money work under way: exit at once (no more pages fetched for nobody), with the exit
//   code the command had so far (0 unless it already failed);
// - money work under way (a money command, `--wait`, a batch: see `moneyWork` in interrupt.ts):
//   the work goes on to its end, so every operation gets its outcome in the journal; what it
//   still prints on stdout is dropped (a destroyed stream ignores writes), stderr still speaks.

let installed = false;
let moneyWorkUnderWay = 0;

/** Marks money work under way until the returned function is called. */
export function beginMoneyWork(): () => void {
  moneyWorkUnderWay++;
  let ended = false;
  return () => {
    if (!ended) moneyWorkUnderWay--;
    ended = true;
  };
}

/**
 * Installs the EPIPE handling on process.stdout, once per process. A closed stderr (`2>&1 | head
 * -1`) is ignored: what is left to say is lost, but the command goes on and ends with its own
 * exit code (a refused batch is exit 2, not a crash's 1).
 */
export function guardClosedStdout(): void {
  if (installed) return;
  installed = true;
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    if (moneyWorkUnderWay > 0) return;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}
