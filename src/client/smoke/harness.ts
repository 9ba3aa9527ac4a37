// The smoke test's machinery: a request budget every attempt draws from (retries included),
// one signed client per purpose (the real one, one signing with a wrong secret, one reusing a
// nonce), the exchange of each case captured as `--verbose` prints it (never the secret), and
// a case runner that times each case and turns its outcome into a report row.
import { performance } from 'node:perf_hooks';
import { CardctlError, type ErrorKind } from '../../errors.js';
import type { Credentials } from '../../profiles/types.js';
import { ApiClient, ApiError, type ApiRequest, type ApiResponse } from '../client.js';

/** The issue's bound: a smoke run never sends more than this many requests. */
export const MAX_REQUESTS = 30;

export type SmokeGroup = 'setup' | 'signing' | 'customers' | 'cards' | 'funding';

export interface SmokeCase {
  group: SmokeGroup;
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  expected: string;
  got: string;
  time_ms: number;
  /** requests this case sent (retries included) */
  requests: number;
  /** for a failure: the exchange as --verbose shows it (no secret) */
  details?: string;
  /** for a failure: the class of error, which chooses the exit code */
  kind?: ErrorKind;
}

/** A case did not get what it expected; `kind` is the class of the failure. */
export class CaseFailure extends Error {
  constructor(
    readonly got: string,
    readonly kind: ErrorKind,
    /** the body of the answer that did not match, for the details */
    readonly answer?: string,
  ) {
    super(got);
  }
}

export class BudgetExhausted extends CardctlError {
  constructor(max: number) {
    super(`the smoke test's budget of ${max} requests is used up (retries after 429 or 503 count too).`, {
      kind: 'rate_limited',
      hint: 'The API is slowing this key down: run it again later, or with a key nobody else uses.',
    });
  }
}

export class RequestBudget {
  used = 0;
  constructor(readonly max = MAX_REQUESTS) {}
  take(): void {
    if (this.used >= this.max) throw new BudgetExhausted(this.max);
    this.used++;
  }
}

/** What a call came back with: an answer (2xx), or the error (with the answer when there was one). */
export interface Outcome {
  res?: ApiResponse;
  err?: CardctlError;
}

export interface HarnessDeps {
  credentials: Credentials;
  budget: RequestBudget;
  sleep: (ms: number) => Promise<void>;
  timeoutMs?: number;
}

export class Harness {
  readonly cases: SmokeCase[] = [];
  private lines: string[] = [];
  private readonly clients = new Map<string, ApiClient>();

  constructor(private readonly deps: HarnessDeps) {}

  get credentials(): Credentials {
    return this.deps.credentials;
  }

  /** Requests sent so far in this run. */
  get requestsUsed(): number {
    return this.deps.budget.used;
  }

  sleep(ms: number): Promise<void> {
    return this.deps.sleep(ms);
  }

  /** A client of this run: every attempt draws from the budget; no journal (play money, test keys only). */
  client(variant: 'normal' | 'wrong-secret' | 'fixed-nonce' = 'normal'): ApiClient {
    let c = this.clients.get(variant);
    if (c) return c;
    const creds = this.deps.credentials;
    // a secret that is surely not the key's: the real one with its first character changed
    const secret =
      variant === 'wrong-secret' ? (creds.secret[0] === 'A' ? 'B' : 'A') + creds.secret.slice(1) : creds.secret;
    const nonce = `smoke-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    c = new ApiClient({
      credentials: { ...creds, secret },
      retries: variant === 'normal' ? 3 : 0,
      log: (line) => this.lines.push(line),
      journal: null,
      timeoutMs: this.deps.timeoutMs,
      ...(variant === 'fixed-nonce' ? { nonce: () => nonce } : {}),
      // a retry is one more request: it draws from the budget before it waits
      sleep: (ms) => {
        this.deps.budget.take();
        return this.deps.sleep(ms);
      },
    });
    this.clients.set(variant, c);
    return c;
  }

  /** A client for doctor's probes: each first attempt draws from the budget too (no retries). */
  probeClient(timeoutMs: number): ApiClient {
    const budget = this.deps.budget;
    const log = (line: string): void => void this.lines.push(line);
    return new (class extends ApiClient {
      override send(req: ApiRequest): Promise<ApiResponse> {
        budget.take();
        return super.send(req);
      }
    })({
      credentials: this.deps.credentials,
      retries: 0,
      journal: null,
      timeoutMs: this.deps.timeoutMs ?? timeoutMs,
      log,
    });
  }

  /** The exchange captured since the current case began. */
  exchange(): string | undefined {
    return this.lines.length ? this.lines.join('\n') : undefined;
  }

  /** Starts capturing the exchange of a case run outside `run` (setup). */
  beginCapture(): void {
    this.lines = [];
  }

  /** Sends one request (its first attempt draws from the budget); never throws an API refusal. */
  async call(req: ApiRequest, variant: 'normal' | 'wrong-secret' | 'fixed-nonce' = 'normal'): Promise<Outcome> {
    this.deps.budget.take();
    try {
      return { res: await this.client(variant).send(req) };
    } catch (err) {
      if (err instanceof BudgetExhausted) throw err;
      if (err instanceof ApiError) return { err, res: err.response };
      if (err instanceof CardctlError) return { err };
      throw err;
    }
  }

  /** Runs one case; `fn` answers what it got, or throws a CaseFailure. Never throws. */
  async run(group: SmokeGroup, name: string, expected: string, fn: () => Promise<string>): Promise<boolean> {
    this.lines = [];
    const before = this.deps.budget.used;
    const started = performance.now();
    let row: SmokeCase;
    const base = { group, name, expected };
    try {
      const got = await fn();
      row = { ...base, status: 'passed', got, time_ms: 0, requests: 0 };
    } catch (err) {
      const failure = err instanceof CaseFailure ? err : null;
      const e = err instanceof CardctlError ? err : null;
      const got = failure?.got ?? (e ? describeError(e) : `unexpected error: ${(err as Error).message ?? String(err)}`);
      const kind: ErrorKind = failure?.kind ?? e?.kind ?? 'unexpected';
      // the exchange as --verbose shows it, and the last answer's body (the API's words)
      const answer = err instanceof ApiError ? err.response?.text : failure?.answer;
      if (answer)
        this.lines.push(
          `< body: ${answer.length > 2_000 ? `${answer.slice(0, 2_000)}… (${answer.length} bytes)` : answer}`,
        );
      row = {
        ...base,
        status: 'failed',
        got,
        kind,
        time_ms: 0,
        requests: 0,
        ...(this.lines.length ? { details: this.lines.join('\n') } : {}),
      };
    }
    row.time_ms = Math.round(performance.now() - started);
    row.requests = this.deps.budget.used - before;
    this.cases.push(row);
    return row.status === 'passed';
  }

  skip(group: SmokeGroup, name: string, expected: string, why: string): void {
    this.cases.push({ group, name, status: 'skipped', expected, got: `not run: ${why}`, time_ms: 0, requests: 0 });
  }

  /** Records a finished case as is (setup's checks come from doctor). */
  record(row: SmokeCase): void {
    this.cases.push(row);
  }
}

/** `422 payload_mismatch: message (field: reason; ...)`, or the transport failure. */
export function describeError(e: CardctlError): string {
  const fields = Object.entries(e.errors ?? {})
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('; ');
  const text = `${e.message}${fields ? ` (${fields})` : ''}`;
  return e.status ? `${e.status}${e.code ? ` ${e.code}` : ''}: ${text}` : text;
}

/** What came back, in a few words: `201`, or the refusal. */
export function describeOutcome(o: Outcome): string {
  if (o.err) return describeError(o.err);
  return String(o.res?.status ?? 'no answer');
}

/** The answer's `data`, when the call succeeded. */
export function dataOf<T = Record<string, unknown>>(o: Outcome): T | undefined {
  return (o.res?.body as { data?: T } | undefined)?.data;
}

/** Passes when the call was refused with `status` (and `code`, when given); `kind` classes a call that was not refused. */
export function expectRefusal(o: Outcome, status: number, code: string | undefined, kind: ErrorKind): string {
  if (o.err?.status === status && (code === undefined || o.err.code === code))
    return `${status}${o.err.code ? ` ${o.err.code}` : ''}`;
  if (o.err) throw new CaseFailure(describeOutcome(o), o.err.kind, o.res?.text);
  throw new CaseFailure(`${o.res?.status ?? 'no answer'}: accepted`, kind, o.res?.text);
}

/** The data of a successful call, or a CaseFailure that says what came back instead. */
export function expectData<T = Record<string, unknown>>(o: Outcome, what: string): T {
  if (o.err) throw new CaseFailure(describeOutcome(o), o.err.kind, o.res?.text);
  const data = dataOf<T>(o);
  if (!data || typeof data !== 'object')
    throw new CaseFailure(`${o.res?.status}: no ${what} in the answer`, 'unexpected', o.res?.text);
  return data;
}

export function check(ok: boolean, got: string, kind: ErrorKind = 'unexpected'): void {
  if (!ok) throw new CaseFailure(got, kind);
}
