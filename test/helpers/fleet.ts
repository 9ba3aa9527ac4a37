// A fleet for the tests of the shared journal: a real PostgreSQL (test/helpers/postgres.ts) and the
// real mock for one describe block, and its machines, each with its own new config and state
// folders, the mock's test key and the journal it is given (nothing else shared but the database).
//
//   describe.runIf(needsPostgres())('...', () => {
//     const f = useFleet({ seed: 35 });
//     it('...', async () => {
//       const a = f.machine(await f.newJournal());
//       await a.run(['cards', 'recharge', ...]);
//     });
//   });
import { afterAll, beforeAll } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from './api.js';
import { type CliResult, cleanEnv, makeSandbox, type Sandbox } from './cli.js';
import { type Postgres, type StartOptions, startPostgres } from './postgres.js';

export interface Machine {
  sb: Sandbox;
  /** the machine's whole environment, for a child started by hand */
  env: Record<string, string>;
  run(args: string[], extra?: Record<string, string>): Promise<CliResult>;
}

export interface Fleet {
  /** the server (started in the block's beforeAll) */
  readonly pg: Postgres;
  readonly mock: MockHandle;
  /** A machine recording in `journalUrl` (undefined: its own local journal). */
  machine(journalUrl: string | undefined): Machine;
  /** A new database of the server, for one test: its URL, the password in it. */
  newJournal(): Promise<string>;
}

/** Call inside a describe: its beforeAll starts the server and the mock, its afterAll stops both and removes the machines' folders. */
export function useFleet(o: { seed: number; server?: StartOptions }): Fleet {
  let pg: Postgres | undefined;
  let mock: MockHandle | undefined;
  const sandboxes: Sandbox[] = [];
  let databases = 0;
  beforeAll(async () => {
    pg = await startPostgres(o.server);
    mock = (await startMock({ port: 0, seed: o.seed, providerLatencyMs: 0 })) as unknown as MockHandle;
  }, 60_000);
  afterAll(async () => {
    await mock?.close();
    await pg?.stop();
    for (const s of sandboxes) s.cleanup();
  });
  const started = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('the fleet starts in beforeAll: use it inside a test');
    return x;
  };
  return {
    get pg() {
      return started(pg);
    },
    get mock() {
      return started(mock);
    },
    machine(journalUrl) {
      const sb = makeSandbox();
      sandboxes.push(sb);
      const m = started(mock);
      const env = {
        CARDCTL_API_KEY: m.keys.test.keyId,
        CARDCTL_API_SECRET: m.keys.test.secret,
        CARDCTL_BASE_URL: m.baseUrl,
        CARDCTL_MODE: 'test',
        ...(journalUrl ? { CARDCTL_JOURNAL_URL: journalUrl } : {}),
      };
      return {
        sb,
        env: { ...cleanEnv(), ...sb.env, ...env },
        run: (args, extra = {}) => sb.run(args, { env: { ...env, ...extra }, timeoutMs: 60_000 }),
      };
    },
    newJournal: () => started(pg).createDatabase(`journal_${++databases}`),
  };
}
