// Every child process a test starts is killed in teardown, also when the test failed or timed out
// (a `webhooks listen` left behind by a timed-out test once ran forever). node:child_process's
// spawn, execFile and exec are wrapped for the whole test run (the *Sync calls end before they
// return): a child started during a test is killed after that test (after
// the last of concurrent tests), one started in a beforeAll after its file, and any left when the
// worker exits is killed then. Kill by pid only: never another engineer's processes. A child a
// helper marks with OUTLIVES_TEST (the PostgreSQL server of test/helpers/postgres.ts, which a test
// may restart for its file's later tests) is left to its file's end.
import childProcess, { type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, afterEach, beforeEach } from 'vitest';

const OUTLIVES_TEST = Symbol.for('cardctl.test.outlivesTest');
const live = new Map<ChildProcess, 'test' | 'file'>();
/** tests running now (more than one in a describe.concurrent) */
let running = 0;

function track(child: ChildProcess): ChildProcess {
  live.set(child, running > 0 ? 'test' : 'file');
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}

// spawn, execFile and exec (the last two call node's internal spawn, not this export)
for (const name of ['spawn', 'execFile', 'exec'] as const) {
  const original = childProcess[name] as ((...args: unknown[]) => ChildProcess) & { tracked?: boolean };
  if (original.tracked) continue;
  const tracked = Object.assign(
    function (this: unknown, ...args: unknown[]) {
      return track(original.apply(this, args));
    },
    { tracked: true },
  );
  // util.promisify(execFile) keeps working: its custom promisified form is carried over
  for (const key of Reflect.ownKeys(original))
    if (typeof key === 'symbol') Reflect.set(tracked, key, Reflect.get(original, key));
  (childProcess as unknown as Record<string, unknown>)[name] = tracked;
}
syncBuiltinESMExports();

function killAll(scope: 'test' | 'file' | 'all'): void {
  for (const [child, started] of live) {
    if (scope === 'test' && (started !== 'test' || OUTLIVES_TEST in child)) continue;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    live.delete(child);
  }
}

beforeEach(() => {
  running++;
});
// concurrent tests cannot tell whose child is whose: the children of tests go once none is running
afterEach(() => {
  running = Math.max(0, running - 1);
  if (running === 0) killAll('test');
});
afterAll(() => killAll('file'));
process.once('exit', () => killAll('all'));
