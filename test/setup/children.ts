// Every child process a test starts is killed in teardown, also when the test failed or timed out
// (a `webhooks listen` left behind by a timed-out test once ran forever). node:child_process's
// spawn is wrapped for the whole test run (the tests start their children with it; the *Sync
// calls end before they return): a child started during a test is killed after that test (after
// the last of concurrent tests), one started in a beforeAll after its file, and any left when the
// worker exits is killed then. Kill by pid only: never another engineer's processes.
import childProcess, { type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, afterEach, beforeEach } from 'vitest';

const live = new Map<ChildProcess, 'test' | 'file'>();
/** tests running now (more than one in a describe.concurrent) */
let running = 0;

const original = childProcess.spawn;
if (!(original as { tracked?: boolean }).tracked) {
  const tracked = function (this: unknown, ...args: Parameters<typeof original>) {
    const child = original.apply(this, args);
    live.set(child, running > 0 ? 'test' : 'file');
    child.once('exit', () => live.delete(child));
    child.once('error', () => live.delete(child));
    return child;
  } as typeof original;
  (tracked as { tracked?: boolean }).tracked = true;
  childProcess.spawn = tracked;
  syncBuiltinESMExports();
}

function killAll(scope: 'test' | 'file' | 'all'): void {
  for (const [child, started] of live) {
    if (scope === 'test' && started !== 'test') continue;
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
