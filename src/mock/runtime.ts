// Everything one running mock holds: the state, its clocks, the gateway's memories and the
// event log. Handlers receive it through the request context.
import { SimClock } from './clock.js';
import { EventLog } from './events.js';
import { NonceMemory } from './nonces.js';
import { RateLimiter } from './ratelimit.js';
import { cryptoRandom, type RandomSource } from './random.js';
import { walletKey, type MockState, type Mode, type PreloadedKey, type WalletRec } from './state.js';
import { saveState } from './persistence.js';
import type { HostLookup } from './endpoint-url.js';

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
}

export class Runtime {
  state: MockState;
  readonly clock: SimClock;
  readonly events: EventLog;
  readonly nonces = new NonceMemory();
  readonly rate: RateLimiter;
  readonly rand: RandomSource = cryptoRandom;
  /** runs after every change that fell due (KYC verdicts, expiry), installed by the server */
  dueTasks: Array<(rt: Runtime) => boolean> = [];
  /** the webhook delivery log, installed by webhooks.ts */
  deliveryLog: () => unknown[] = () => [];
  /** runs `run` (which brings things due) and waits, bounded, for the webhook attempts it started */
  awaitDue: (run: () => void) => Promise<void> = (run) => {
    run();
    return Promise.resolve();
  };
  private dirty = false;

  constructor(state: MockState, readonly options: RuntimeOptions) {
    this.state = state;
    this.clock = new SimClock(state.clock_offset_ms);
    this.events = new EventLog(() => this.state, () => this.clock.now());
    this.rate = new RateLimiter(options.rateLimit);
  }

  now(): number {
    return this.clock.now();
  }

  wallet(merchantId: string, mode: Mode): WalletRec {
    return this.state.wallets[walletKey(merchantId, mode)]!;
  }

  markDirty(): void {
    this.dirty = true;
  }

  /** Writes the snapshot when something changed (called before each answer is sent). */
  persist(): void {
    this.state.clock_offset_ms = this.clock.offsetMs;
    if (!this.dirty || !this.options.stateFile) {
      this.dirty = false;
      return;
    }
    saveState(this.options.stateFile, this.state);
    this.dirty = false;
  }

  /** Applies everything that fell due on the simulated clock; true when something changed. */
  runDue(): boolean {
    let changed = false;
    for (const task of this.dueTasks) changed = task(this) || changed;
    if (changed) this.markDirty();
    return changed;
  }

  /** Back to the seeded start (same seed, same keys), clock offset zero, memories cleared. */
  reset(): void {
    this.state = this.options.buildStart();
    this.clock.offsetMs = 0;
    this.nonces.clear();
    this.rate.clear();
    this.markDirty();
  }
}
