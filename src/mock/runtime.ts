// Everything one running mock holds: the state, its clocks, the gateway's memories and the
// event log. Handlers receive it through the request context.
import { SimClock } from './clock.js';
import { EventLog } from './events.js';
import { NonceMemory } from './nonces.js';
import { RateLimiter } from './ratelimit.js';
import { cryptoRandom, type RandomSource } from './random.js';
import { walletKey, type MockState, type Mode, type PreloadedKey, type WalletRec } from './state.js';
import type { HostLookup } from './endpoint-url.js';
import { ChangeTracker, KEYED_COLLECTIONS } from './tracker.js';
import { SnapshotStore, objectCount, type SnapshotInfo } from './snapshots.js';
import type { DurableStore, Op } from './persistence.js';
import { NO_DELIVERIES, type Deliveries } from './delivery-port.js';
import { RequestLog } from './request-log.js';
import { SecretRedactor, secretsOf } from './redaction.js';

const KEYED = new Set<string>(KEYED_COLLECTIONS);

export interface RuntimeOptions {
  realNow: () => number;
  rateLimit: number;
  providerLatencyMs: number;
  stateFile?: string;
  preload: PreloadedKey[];
  webhookUrls: string[];
  /** resolves webhook endpoint host names, at registration and at each delivery */
  lookup: HostLookup;
  /** the seeded start, rebuilt by reset */
  buildStart: () => MockState;
  /** how many answered requests the request log keeps; 0: no log */
  requestLog: number;
  /** what falls due on the simulated clock (KYC verdicts, expiry, stored replies), run by runDue */
  dueTasks?: Array<(rt: Runtime) => boolean>;
  /** webhook delivery, built for this runtime (webhooks.ts); default none */
  deliveries?: (rt: Runtime) => Deliveries;
}

export class Runtime {
  /** the plain state; handlers use `state` (tracked when it is saved to disk) */
  private raw: MockState;
  private tracked: MockState;
  private tracker: ChangeTracker | null = null;
  /** with --state: the base file and its journal */
  private store: DurableStore | null = null;
  /** everything is saved by the next commit (after a reset, a restore, or a failed save) */
  private saveAll = false;
  /** the JSON text of the state saveAll will write, when it is known already (a restored snapshot) */
  private saveAllJson: string | null = null;
  readonly snapshots: SnapshotStore;
  private savedFirstEvent: number | null = null;
  private savedLastEvent = -Infinity;
  readonly clock: SimClock;
  readonly events: EventLog;
  readonly nonces = new NonceMemory();
  readonly rate: RateLimiter;
  readonly rand: RandomSource = cryptoRandom;
  /** the last requests answered, with a diagnosis for each refusal; null when turned off */
  readonly requestLog: RequestLog | null;
  /** runs after every change that fell due (KYC verdicts, expiry), given at construction */
  private readonly dueTasks: ReadonlyArray<(rt: Runtime) => boolean>;
  /** webhook delivery: its log, re-enabling an endpoint, waiting for the attempts a clock advance starts */
  readonly deliveries: Deliveries;
  /** every secret this mock ever held, kept out of the request log (a new one is added where it is made) */
  readonly redactor = new SecretRedactor();

  constructor(
    state: MockState,
    readonly options: RuntimeOptions,
  ) {
    this.raw = this.tracked = state;
    this.redactor.add(secretsOf(state));
    this.snapshots = new SnapshotStore(options.stateFile ? `${options.stateFile}.snapshots` : null);
    this.clock = new SimClock(state.clock_offset_ms);
    this.events = new EventLog(
      () => this.state,
      () => this.clock.now(),
    );
    this.rate = new RateLimiter(options.rateLimit);
    this.requestLog = options.requestLog > 0 ? new RequestLog(options.requestLog) : null;
    this.dueTasks = options.dueTasks ?? [];
    this.deliveries = options.deliveries ? options.deliveries(this) : NO_DELIVERIES;
  }

  now(): number {
    return this.clock.now();
  }

  wallet(merchantId: string, mode: Mode): WalletRec {
    return this.state.wallets[walletKey(merchantId, mode)]!;
  }

  get state(): MockState {
    return this.tracked;
  }

  /** The plain state (no tracking): for copies and snapshots. */
  get plainState(): MockState {
    return this.raw;
  }

  /** Replaces the whole state (reset, snapshot restore): the next commit saves all of it. */
  replaceState(next: MockState, json: string | null = null): void {
    this.saveAllJson = json;
    this.raw = next;
    this.redactor.add(secretsOf(next));
    this.tracked = this.tracker ? this.tracker.wrap(next) : next;
    this.clock.offsetMs = next.clock_offset_ms ?? 0;
    this.saveAll = true;
  }

  /** From now on every change is saved to `store` before its answer is sent. */
  attachStore(store: DurableStore): void {
    this.store = store;
    this.tracker = new ChangeTracker();
    this.tracked = this.tracker.wrap(this.raw);
    this.savedFirstEvent = this.raw.events[0]?.seq ?? null;
    this.savedLastEvent = this.raw.events.at(-1)?.seq ?? -Infinity;
  }

  /** Kept for the callers that only say "something changed": the tracker knows what. */
  markDirty(): void {}

  /** The saved changes since the last commit, as journal entries. */
  private takeOps(): Op[] {
    const raw = this.raw as unknown as Record<string, unknown>;
    const taken = this.tracker!.take();
    const ops: Op[] = [];
    const events = this.raw.events;
    if (this.saveAll || this.store!.needsFull) {
      this.saveAll = false;
      ops.push(this.saveAllJson !== null ? ['allj', this.saveAllJson] : ['all', this.raw]);
      this.saveAllJson = null;
    } else {
      for (const c of taken.replaced) ops.push(['c', c, raw[c] ?? {}]);
      for (const [c, keys] of taken.marked) {
        if (taken.replaced.includes(c)) continue;
        const coll = raw[c] as Record<string, unknown> | undefined;
        for (const k of keys) {
          const v = coll?.[k];
          ops.push(v === undefined ? ['d', c, k] : ['s', c, k, v]);
        }
      }
      if (taken.root) {
        const root: Record<string, unknown> = {};
        for (const k of Object.keys(raw)) if (!KEYED.has(k) && k !== 'events') root[k] = raw[k];
        ops.push(['r', root]);
      }
      const first = events[0]?.seq ?? null;
      if (first !== this.savedFirstEvent) ops.push(['ef', first]);
      let i = events.length;
      while (i > 0 && events[i - 1]!.seq > this.savedLastEvent) i--;
      if (i < events.length) ops.push(['e', events.slice(i)]);
    }
    this.savedFirstEvent = events[0]?.seq ?? null;
    this.savedLastEvent = events.at(-1)?.seq ?? -Infinity;
    return ops;
  }

  /**
   * Saves what changed (with --state) and resolves once it is on disk: concurrent commits share
   * one write and one fsync. `waitForOthers`: also wait for changes saved by others still in
   * flight (a write answer must not reveal a change that a crash could still lose).
   */
  commit(waitForOthers = true): Promise<void> {
    const store = this.store;
    if (!store) return Promise.resolve();
    if (this.raw.clock_offset_ms !== this.clock.offsetMs) this.state.clock_offset_ms = this.clock.offsetMs;
    const events = this.raw.events;
    const eventsChanged =
      (events[0]?.seq ?? null) !== this.savedFirstEvent || (events.at(-1)?.seq ?? -Infinity) !== this.savedLastEvent;
    if (!this.saveAll && !store.needsFull && !this.tracker!.pending && !eventsChanged) {
      return waitForOthers ? store.barrier() : Promise.resolve();
    }
    const full = this.saveAll || store.needsFull;
    const ops = this.takeOps();
    return store.append(ops, full).then(
      () => {
        if (store.wantsCompaction) void store.compact();
      },
      (err: Error) => {
        // what this batch held is not on disk: the next save writes the whole state again
        this.saveAll = true;
        throw err;
      },
    );
  }

  /** Saves a copy of the whole state under `name` (replacing one of that name). */
  saveSnapshot(name: string): SnapshotInfo {
    this.raw.clock_offset_ms = this.clock.offsetMs;
    return this.snapshots.save(name, this.raw, new Date());
  }

  /** Replaces the state by the named snapshot (its simulated clock included); null when there is none. */
  restoreSnapshot(name: string): (SnapshotInfo & { clock: ReturnType<SimClock['view']> }) | null {
    const loaded = this.snapshots.load(name);
    if (!loaded) return null;
    this.replaceState(loaded.state, loaded.json);
    const info = this.snapshots.list().find((s) => s.name === name)!;
    return { ...info, objects: objectCount(loaded.state), clock: this.clock.view() };
  }

  /** Saves without waiting (timers, webhook attempts): a failure is logged. */
  persist(): void {
    this.commit(false).catch((err: Error) =>
      process.stderr.write(`cardctl mock: could not save the state: ${err.message}\n`),
    );
  }

  /** Waits for every queued save, then closes the journal. */
  async closeStore(): Promise<void> {
    if (!this.store) return;
    await this.commit(true).catch(() => {});
    await this.store.close();
  }

  /** Applies everything that fell due on the simulated clock; true when something changed. */
  runDue(): boolean {
    let changed = false;
    for (const task of this.dueTasks) changed = task(this) || changed;
    changed = this.deliveries.kick() || changed;
    if (changed) this.markDirty();
    return changed;
  }

  /** Back to the seeded start (same seed, same keys), clock offset zero, memories cleared. */
  reset(): void {
    const fresh = this.options.buildStart();
    fresh.clock_offset_ms = 0;
    this.replaceState(fresh);
    this.nonces.clear();
    this.rate.clear();
  }
}
