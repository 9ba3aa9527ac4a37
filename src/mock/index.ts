// startMock: the embedded mock as a library (published as 'cardctl/mock').
import { createHash, randomBytes } from 'node:crypto';
import { listen } from './server.js';
import { Runtime } from './runtime.js';
import { controlTokens } from './control/index.js';
import { resolveStatePath } from './state-path.js';
import { DurableStore, StateFileError, loadDurableState, readStateFile, type LoadedState } from './persistence.js';
import { lockStateFile } from './state-lock.js';
import type { SnapshotInfo } from './snapshots.js';
import { randomSeed, newId, cryptoRandom } from './random.js';
import {
  addKey,
  addMerchantRecord,
  buildSeededState,
  defaultKeys,
  type MockState,
  type PreloadedKey,
  type ProductRec,
} from './state.js';
import { settleCustomers } from './kyc.js';
import { expireCards } from './card-lifecycle.js';
import { snapshotNameProblem } from './snapshots.js';
import { expireIdempotency } from './idempotency.js';
import type { EventListener } from './events.js';
import { WebhookDelivery } from './webhooks.js';
import { checkStartOptions } from './options.js';
import { endpointUrlVerdict, type HostLookup } from './endpoint-url.js';
import { systemLookup } from './host-lookup.js';
import { DEFAULT_REQUEST_LOG_SIZE } from './request-log.js';
import { consolePorts } from './console-port.js';
import { createConsole } from '../console/index.js';

export interface StartMockOptions {
  host?: string;
  port?: number;
  seed?: number;
  stateFile?: string;
  /** with stateFile: a damaged state is salvaged up to the damage (the damaged files renamed aside) instead of refused */
  recover?: boolean;
  /** with stateFile: the journal is folded into a new base once larger than this (default: larger than the base and than 8 MiB) */
  compactAfterBytes?: number;
  /** start from this snapshot file (one written by a snapshot save with --state, or a state file) instead of the seeded start */
  snapshot?: string;
  rateLimit?: number;
  webhookUrls?: string[];
  /** real clock in ms, used only by the gateway's 300 s window and the rate limit */
  now?: () => number;
  providerLatencyMs?: number;
  keys?: PreloadedKey[];
  /** webhook attempts: connect timeout in real ms (default 5000; tests shorten it) */
  webhookConnectTimeoutMs?: number;
  /** webhook attempts: total timeout in real ms (default 15000) */
  webhookTimeoutMs?: number;
  /** resolves webhook endpoint host names to every address (default: the system resolver, node:dns lookup) */
  lookup?: HostLookup;
  /** how many answered requests the request log keeps (default 10,000; 0 turns it off): `GET /_mock/requests` */
  requestLog?: number;
}

/** A product as the banner and `mock.products` show it. */
export type MockProduct = ProductRec;

export interface MockServer {
  baseUrl: string;
  controlUrl: string;
  controlToken: string;
  merchantId: string;
  keys: { test: { keyId: string; secret: string }; live: { keyId: string; secret: string } };
  webhookSecret: string;
  products: MockProduct[];
  networks: string[];
  port: number;
  /** subscribe to recorded events (the seam for webhook delivery) */
  onEvent(listener: EventListener): () => void;
  /** subscribe to the request log: each request as it is answered (the record `GET /_mock/requests` shows); a no-op with requestLog 0 */
  onRequest(listener: (record: Record<string, unknown>) => void): () => void;
  /**
   * The web console's address with a new one-time login code (good once, for 10 minutes); the
   * console is served on the mock's port from the first call on (`cardctl mock start --console`).
   */
  consoleLoginUrl(): string;
  /** Saves the whole state under `name` (as `POST /_mock/snapshots`). */
  saveSnapshot(name: string): Promise<SnapshotInfo>;
  /** Back to the state saved under `name` (as `POST /_mock/snapshots/{name}/restore`); takes milliseconds. */
  restoreSnapshot(name: string): Promise<SnapshotInfo>;
  listSnapshots(): SnapshotInfo[];
  close(): Promise<void>;
  /** with stateFile and recover: what was salvaged and where the damaged files were kept */
  recovered?: { damage: string; keptAs: string[]; batches: number };
  /** with stateFile: the files were in the format before checksums and were rewritten */
  migrated?: boolean;
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_RATE_LIMIT = 600;
export const DEFAULT_PROVIDER_LATENCY_MS = 50;

function originFor(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

function withStartExtras(state: MockState, preload: PreloadedKey[], webhookUrls: string[]): MockState {
  const now = Date.now();
  for (const k of preload) {
    if (state.keys[k.keyId]) continue;
    const merchantId = k.merchantId ?? state.default_merchant_id;
    if (!state.merchants[merchantId]) addMerchantRecord(state, cryptoRandom, now, merchantId);
    addKey(state, cryptoRandom, now, {
      merchant_id: merchantId,
      mode: k.mode,
      scopes: k.scopes,
      ip_allowlist: k.ipAllowlist,
      key_id: k.keyId,
      secret: k.secret,
    });
  }
  for (const url of webhookUrls) {
    if (Object.values(state.endpoints).some((e) => e.url === url && e.merchant_id === state.default_merchant_id))
      continue;
    const id = newId(cryptoRandom, now);
    state.endpoints[id] = { id, merchant_id: state.default_merchant_id, url, created_at: now };
  }
  return state;
}

/** Writes the first base of `file` (its folder created 0700) and saves every change there from now on. */
function attachDurableStore(rt: Runtime, file: string, generation: number, compactAfterBytes?: number): void {
  try {
    rt.attachStore(new DurableStore(file, rt.plainState, generation, compactAfterBytes));
  } catch (err) {
    throw new StateFileError(
      `cannot save the state to ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): give --state a file in a folder you can write`,
    );
  }
}

/** The handle's snapshot methods: the control plane's calls, in process. */
function snapshotMethods(rt: Runtime): Pick<MockServer, 'saveSnapshot' | 'restoreSnapshot' | 'listSnapshots'> {
  return {
    saveSnapshot: async (name) => {
      const problem = snapshotNameProblem(name);
      if (problem) throw new RangeError(`saveSnapshot: ${problem}`);
      return rt.saveSnapshot(name);
    },
    restoreSnapshot: async (name) => {
      const info = snapshotNameProblem(name) === null ? rt.restoreSnapshot(name) : null;
      if (!info)
        throw new RangeError(
          `restoreSnapshot: there is no snapshot named ${JSON.stringify(name)}; listSnapshots() shows the saved ones.`,
        );
      await rt.commit(true);
      return info;
    },
    listSnapshots: () => rt.snapshots.list(),
  };
}

/** Throws a TypeError or RangeError naming the wrong option and what it expects (before anything starts). */
export async function startMock(options: StartMockOptions = {}): Promise<MockServer> {
  checkStartOptions(options);
  const host = options.host ?? '127.0.0.1';
  const preload = options.keys ?? [];
  const lookup = options.lookup ?? systemLookup;
  // each URL by the rules of registration (its host resolved), stored in its normalized form
  const webhookUrls: string[] = [];
  for (const url of options.webhookUrls ?? []) {
    const verdict = await endpointUrlVerdict(url, lookup);
    if (!verdict.ok) throw new RangeError(`startMock: webhookUrls: ${JSON.stringify(url)}: ${verdict.problem}`);
    webhookUrls.push(verdict.url);
  }
  // the lock first, on the file's real path: a second mock on the same file is refused before it
  // reads anything, however the file is named (a symlink, `x/../file`)
  const stateFile = options.stateFile ? resolveStatePath(options.stateFile) : undefined;
  const lock = stateFile ? lockStateFile(stateFile) : null;
  let durable: LoadedState | null = null;
  try {
    durable = stateFile ? loadDurableState(stateFile, { recover: options.recover }) : null;
  } catch (err) {
    lock?.release();
    throw err;
  }
  const loaded = options.snapshot !== undefined ? readStateFile(options.snapshot) : (durable?.state ?? null);
  const seed = loaded?.seed ?? options.seed ?? randomSeed();
  const fresh = (): MockState => withStartExtras(buildSeededState(seed, Date.now()).state, preload, webhookUrls);
  const state = loaded ? withStartExtras(loaded, preload, webhookUrls) : fresh();
  const rt = new Runtime(state, {
    realNow: options.now ?? Date.now,
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    providerLatencyMs: options.providerLatencyMs ?? DEFAULT_PROVIDER_LATENCY_MS,
    stateFile,
    preload,
    webhookUrls,
    lookup,
    buildStart: fresh,
    requestLog: options.requestLog ?? DEFAULT_REQUEST_LOG_SIZE,
    dueTasks: [settleCustomers, expireCards, expireIdempotency],
    deliveries: (runtime) =>
      new WebhookDelivery(runtime, {
        connectTimeoutMs: options.webhookConnectTimeoutMs,
        totalTimeoutMs: options.webhookTimeoutMs,
      }),
  });
  // a seed given on purpose makes the whole banner reproducible, the token included
  const controlToken =
    options.seed !== undefined
      ? createHash('sha256').update(`cardctl-mock-control:${options.seed}`).digest('base64url').slice(0, 32)
      : randomBytes(24).toString('base64url');
  controlTokens.set(rt, controlToken);
  rt.redactor.add([controlToken]);
  // the start is on disk before the first answer (a new base; older journals are folded into it)
  let running: Awaited<ReturnType<typeof listen>>;
  try {
    if (stateFile) attachDurableStore(rt, stateFile, durable?.nextGeneration ?? 1, options.compactAfterBytes);
    running = await listen(rt, host, options.port ?? DEFAULT_PORT);
  } catch (err) {
    await rt.closeStore().catch(() => {});
    lock?.release();
    throw err;
  }
  rt.deliveries.start();
  const origin = originFor(host, running.port);
  const consolePort = createConsole(rt, {
    controlToken,
    listenHost: host,
    port: () => running.port,
    origin: () => origin,
  });
  consolePorts.set(rt, consolePort);
  const products = (): MockProduct[] => rt.state.products.map((p) => ({ ...p }));
  return {
    baseUrl: `${origin}/api/v1`,
    controlUrl: `${origin}/_mock`,
    controlToken,
    get merchantId() {
      return rt.state.default_merchant_id;
    },
    get keys() {
      const k = defaultKeys(rt.state);
      return {
        test: { keyId: k.test.key_id, secret: k.test.secret },
        live: { keyId: k.live.key_id, secret: k.live.secret },
      };
    },
    get webhookSecret() {
      return rt.state.merchants[rt.state.default_merchant_id]!.webhook_secret;
    },
    get products() {
      return products();
    },
    get networks() {
      return [...rt.state.networks];
    },
    port: running.port,
    onEvent: (listener) => rt.events.onEvent(listener),
    onRequest: (listener) => rt.requestLog?.onRecord(listener) ?? (() => {}),
    consoleLoginUrl: () => consolePort.loginUrl(),
    ...snapshotMethods(rt),
    close: async () => {
      rt.deliveries.close(); // aborted attempts stay pending (and due) in the saved state
      await running.close();
      try {
        await rt.closeStore(); // every change is already in the journal; this waits for the last ones
      } finally {
        lock?.release();
      }
    },
    recovered: durable?.recovered,
    migrated: durable?.migrated || undefined,
  };
}

export type { PreloadedKey } from './state.js';
export { checkStartOptions, startOptionsProblem } from './options.js';
export { DEFAULT_REQUEST_LOG_SIZE, MAX_REQUEST_LOG_SIZE } from './request-log.js';
export type { SnapshotInfo } from './snapshots.js';
