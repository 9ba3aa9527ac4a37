// The set-up the journal's end-to-end tests share (journal-store, journal-retention,
// journal-adversary): the real mock on port 0 for the whole file, one sandbox (config and state
// folders) per test with a `cli` runner carrying the mock's credentials, and a teardown that
// kills the children a file tracked, closes the mock and removes every sandbox, also on failure.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from './api.js';
import { BIN, makeSandbox, type CliResult, type Sandbox } from './cli.js';

export type JournalSandbox = Sandbox & { cli: (args: string[], extra?: Record<string, string>) => Promise<CliResult> };

export interface JournalSandboxes {
  /** the mock, started before the file's first test */
  readonly mock: MockHandle;
  /** its test-mode credentials and base URL, as CARDCTL_* variables */
  readonly env: Record<string, string>;
  /** a new sandbox, removed after the file's last test */
  sandbox(): JournalSandbox;
  /** a child this file started, killed (if still running) before the mock closes */
  track<T extends ChildProcess>(child: T): T;
  /** `cardctl ARGS` started in the sandbox, not awaited (to be killed), and its close (listened for at once: it may end before a kill) */
  start(s: Sandbox, args: string[]): { child: ChildProcess; closed: Promise<unknown> };
  /** The takeover of the sandbox's operations.ndjson (by `ops list --limit 1`), SIGKILLed once its first checkpoint is written; returns the checkpoint's path. */
  killTakeoverAtCheckpoint(s: Sandbox): Promise<string>;
}

/** `<state>/cardctl`: the folder the journal is in. */
export const state = (s: Sandbox): string => join(s.stateDir, 'cardctl');
/** A command's stdout as JSON. */
export const json = (r: CliResult) => JSON.parse(r.stdout);

/** Registers the file's beforeAll and afterAll; `cliTimeoutMs` bounds each `cli` run. */
export function journalSandboxes(o: { seed: number; cliTimeoutMs: number }): JournalSandboxes {
  let mock: MockHandle | undefined;
  let env: Record<string, string> | undefined;
  const sandboxes: Sandbox[] = [];
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    mock = (await startMock({ port: 0, seed: o.seed, providerLatencyMs: 0 })) as unknown as MockHandle;
    env = {
      CARDCTL_API_KEY: mock.keys.test.keyId,
      CARDCTL_API_SECRET: mock.keys.test.secret,
      CARDCTL_BASE_URL: mock.baseUrl,
      CARDCTL_MODE: 'test',
    };
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await mock?.close();
    for (const s of sandboxes) s.cleanup();
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the mock is not started yet (journalSandboxes is used from a test)');
    return v;
  };
  return {
    get mock() {
      return started(mock);
    },
    get env() {
      return started(env);
    },
    sandbox() {
      const s = makeSandbox();
      sandboxes.push(s);
      return {
        ...s,
        cli: (args, extra = {}) => s.run(args, { env: { ...started(env), ...extra }, timeoutMs: o.cliTimeoutMs }),
      };
    },
    track(child) {
      children.push(child);
      return child;
    },
    start(s, args) {
      const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...s.env, ...started(env) } });
      children.push(child);
      return { child, closed: new Promise((r) => child.once('close', r)) };
    },
    async killTakeoverAtCheckpoint(s) {
      const { child, closed } = this.start(s, ['ops', 'list', '--limit', '1']);
      const progress = join(state(s), 'journal.importing', 'progress.json');
      try {
        // the first checkpoint comes after 96 MiB of staged records: seconds at rest, much longer on a busy machine
        let exited = false;
        child.once('exit', () => (exited = true));
        for (let i = 0; i < 6000 && !existsSync(progress) && !exited; i++) await new Promise((r) => setTimeout(r, 10));
        expect(existsSync(progress), 'a checkpoint was written').toBe(true);
      } finally {
        child.kill('SIGKILL');
        await closed;
      }
      return progress;
    },
  };
}
