// The signed API client: build, sign, send, retry, classify. Every attempt is signed afresh
// (timestamp, nonce, signature); a money operation keeps its Idempotency-Key and body bytes
// across attempts and is journaled before it is sent.
import { hash, randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { API_PREFIX, matchRoute, type RouteDef } from '../contract/routes.js';
import { CardctlError, usageError } from '../errors.js';
import { baseUrlOrigin, type Credentials } from '../profiles/types.js';
import { canonicalQuery } from '../signing/canonical.js';
import { encodeComponent, wireQuery } from '../signing/encoding.js';
import { visible } from '../signing/visible.js';
import { sendAttempt } from './attempt.js';
import { header, journalError, journalReason, toCardctlError, type Outcome } from './errors.js';
import type { Journal, JournalEntry } from './journal.js';
import { cardIdInPath, finalError, journalOutcome, keyStillRemembered, sendVerdict, stoppedAtLimit, type JournalReport, type SendVerdict } from './money-rules.js';
import { DEFAULT_RETRY_POLICY, retryDecision } from './retry.js';
import { checkKeyMode, learnKeyMode } from './key-mode.js';
import { isStateFolderProblem, stateFolderError } from './state-folder.js';
import { serializeMoneyBody } from './serialize.js';
import type { Headers, VerboseLog } from './verbose.js';

export const DEFAULT_RETRIES = 3;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Longest Retry-After we sleep through; beyond it the 429 is reported with the wait to respect. */
export const MAX_RETRY_AFTER_S = 60;

export interface ClientOptions {
  credentials: Credentials;
  retries?: number;
  /** `--verbose` lines (stderr) */
  log?: VerboseLog;
  /** notes for people on stderr: the generated idempotency key, ... */
  note?: (line: string) => void;
  /** clock in ms (tests inject it) */
  now?: () => number;
  nonce?: () => string;
  sleep?: (ms: number) => Promise<void>;
  /** per attempt, for the headers and for the body */
  timeoutMs?: number;
  journal?: Journal | null;
  /** when `journal` is not given: opens it on the first money operation (the session's, so that a command sending none never loads the journal's code) */
  openJournal?: () => Promise<Journal>;
  /** `--yes`: live money operations go without asking */
  yes?: boolean;
  /** asks a person; undefined when nobody can answer (no TTY) */
  confirm?: (question: string) => Promise<boolean>;
  /** smallest backoff step in ms */
  backoffBaseMs?: number;
  /** every answer's status and headers, retries included (the batch limiter reads the rate limit headers) */
  onAnswer?: (status: number, headers: Headers) => void;
  /** a money operation is about to go out (journaled): an interruption from here on leaves its outcome unknown */
  onSent?: (sent: { idempotencyKey?: string; journalId?: string }) => void;
  /** whose state folder remembers each key's mode (src/client/key-mode.ts); default process.env */
  env?: NodeJS.ProcessEnv;
}

export interface ApiRequest {
  method: string;
  /** relative to the base URL (`/cards/ID`) or full (`/api/v1/cards/ID`), may carry `?query` */
  path: string;
  /** k=v pairs (encoded here) or a raw query string (sent and signed as given) */
  query?: string | ReadonlyArray<readonly [string, string]>;
  /** raw body bytes, sent exactly as signed */
  body?: Buffer | string;
  /** a value to serialize instead of `body` (deterministically for money operations) */
  json?: unknown;
  idempotencyKey?: string;
  /** replaying a journal entry: its outcome is recorded under this id */
  journalId?: string;
  /** a row of `--batch`: a row whose journal entry resolved is not sent again */
  batch?: boolean;
}

export interface ApiResponse {
  method: string;
  url: string;
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
  /** parsed JSON, undefined when the body is empty or not JSON */
  body: unknown;
  durationMs: number;
  attempts: number;
  money: boolean;
  idempotencyKey?: string;
  journalId?: string;
  route?: RouteDef;
  /** not sent: the journal's answer (src/client/money-rules.ts); `body` is this report too */
  fromJournal?: JournalReport;
}

/** A CardctlError that also carries the API's answer, when there was one. */
export class ApiError extends CardctlError {
  response?: ApiResponse;
}

export interface PreparedRequest {
  method: string;
  origin: string;
  /** path sent and signed, with the base URL's prefix, without query */
  path: string;
  /** raw query, signed as is */
  query: string;
  body: Buffer;
  route?: RouteDef;
  money: boolean;
  idempotencyKey?: string;
  /** a live money operation a person (or --yes) already confirmed: replays do not ask again */
  confirmed?: boolean;
  /** the key was generated here: it is shown on stderr when the request is first sent */
  generatedKey?: boolean;
  /**
   * The replay of a compacted operation (its body no longer kept): the journal answers from the
   * body's recorded hash, and nothing is ever sent (compacted means older than the retention,
   * so past the key's 23 hours).
   */
  answerFromJournalOnly?: { bodySha256: string };
}

/** A body's SHA-256 in hex (the one-shot hash: a --batch rerun checks a million bodies). */
const sha256Hex = (body: Buffer): string => hash('sha256', body, 'hex');

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function encodeQueryPairs(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&');
}

export class ApiClient {
  readonly credentials: Credentials;
  readonly retries: number;
  private readonly opts: ClientOptions;
  private readonly now: () => number;
  private baseUrl: URL | undefined;

  constructor(options: ClientOptions) {
    this.opts = options;
    this.credentials = options.credentials;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.now = options.now ?? Date.now;
  }

  /** Resolves the URL, the route, the body bytes and the key; refuses bad input before anything is sent. */
  async prepare(req: ApiRequest): Promise<PreparedRequest> {
    const method = req.method.toUpperCase();
    if (!/^[A-Z]+$/.test(method)) throw usageError(`"${req.method}" is not an HTTP method.`, 'Use GET, POST, PATCH, PUT or DELETE.');
    let base: URL;
    try {
      base = this.baseUrl ??= new URL(this.credentials.baseUrl); // parsed once: a --batch prepares a million requests
    } catch {
      throw usageError(`the base URL "${this.credentials.baseUrl}" is not a URL.`, 'Fix it in the profile (`cardctl profiles add`) or in CARDCTL_BASE_URL.');
    }
    const basePath = base.pathname.replace(/\/+$/, '') || API_PREFIX;
    if (/^[a-z]+:\/\//i.test(req.path)) throw usageError(`give a path, not a URL: "${req.path}".`, `For example /cards/ID; the base URL ${this.credentials.baseUrl} comes from the profile.`);
    let rawPath = req.path.startsWith('/') ? req.path : `/${req.path}`;
    let pathQuery = '';
    const q = rawPath.indexOf('?');
    if (q >= 0) {
      pathQuery = rawPath.slice(q + 1);
      rawPath = rawPath.slice(0, q);
    }
    if (/[^\u0021-\u007e]/u.test(rawPath)) throw usageError(`the path "${visible(rawPath)}" contains spaces or non-ASCII characters.`, 'Percent-encode them.');
    const full = rawPath === basePath || rawPath.startsWith(`${basePath}/`) ? rawPath : `${basePath}${rawPath === '/' ? '' : rawPath}`;
    const relative = full.slice(basePath.length) || '/';
    const match = matchRoute(method, relative);
    const route = match?.route;
    const money = route?.money ?? false;

    const queryParts = [pathQuery];
    if (typeof req.query === 'string') queryParts.push(req.query.replace(/^\?/, ''));
    else if (req.query) queryParts.push(encodeQueryPairs(req.query));
    const query = queryParts.filter((p) => p !== '').join('&');
    try {
      canonicalQuery(query);
    } catch (err) {
      throw usageError(`the query cannot be signed: ${(err as Error).message}.`, 'Percent-encode it as UTF-8, or pass it as --query key=value pairs.');
    }

    let body: Buffer;
    if (req.json !== undefined) {
      body = money ? await serializeMoneyBody(route?.operation, req.json) : Buffer.from(JSON.stringify(req.json), 'utf8');
    } else {
      body = req.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    }

    let idempotencyKey = req.idempotencyKey;
    let generatedKey = false;
    if (idempotencyKey !== undefined) {
      if (idempotencyKey === '' || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH || /[^\u0020-\u007e]/u.test(idempotencyKey)) {
        throw usageError('the idempotency key must be 1 to 255 printable ASCII characters.', 'Pass another --idempotency-key, or leave it out to get a generated one.');
      }
      // HTTP drops a header value's surrounding spaces: the API would see another key than the journal holds (and the 24-hour rule reads)
      if (idempotencyKey.startsWith(' ') || idempotencyKey.endsWith(' ')) {
        throw usageError(`the idempotency key "${idempotencyKey}" begins or ends with a space, which HTTP drops: the API would take it for "${idempotencyKey.trim()}".`, 'Pass the key without the surrounding spaces.');
      }
    } else if (money) {
      idempotencyKey = randomUUID();
      generatedKey = true;
    }
    return { method, origin: base.origin, path: full, query, body, route, money, idempotencyKey, generatedKey };
  }

  /** Sends a request; resolves with a 2xx answer (202 included), throws an ApiError otherwise. */
  async send(req: ApiRequest): Promise<ApiResponse> {
    const p = await this.prepare(req);
    return this.sendPrepared(p, req.journalId, { batch: req.batch });
  }

  /**
   * A money operation: the journal is asked first (rules 3 and 4 of src/client/money-rules.ts:
   * a key the API may have forgotten is never sent again), the live confirmation, the journal
   * entry before the first attempt, the attempts, the outcome after. `replayOf`: the journal
   * entry this resends (its outcome is recorded there).
   */
  async sendPrepared(p: PreparedRequest, replayOf?: string, opts: { batch?: boolean } = {}): Promise<ApiResponse> {
    const journal = p.money ? (this.opts.journal ?? (await this.opts.openJournal?.()) ?? null) : null;
    if (!journal || p.idempotencyKey === undefined) return this.sendLocked(p, journal, replayOf, opts);
    // one process at a time per key, from the journal check to the recorded outcome (src/client/key-lock.ts)
    const { lockKey } = await import('./key-lock.js'); // money only: a read never loads it
    const release = lockKey(journal.file, { baseUrl: this.credentials.baseUrl, mode: this.credentials.mode, idempotencyKey: p.idempotencyKey });
    try {
      return await this.sendLocked(p, journal, replayOf, opts);
    } finally {
      release();
    }
  }

  private async sendLocked(p: PreparedRequest, journal: Journal | null, replayOf: string | undefined, opts: { batch?: boolean }): Promise<ApiResponse> {
    const url = `${p.origin}${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`;
    const verdict = journal && p.idempotencyKey !== undefined ? this.verdict(journal, p, opts.batch ?? false) : ({ send: true } as SendVerdict);
    if (!verdict.send) return this.fromJournal(p, url, verdict.report);
    if (p.answerFromJournalOnly) throw new CardctlError(`the journal holds only the identity and outcome of this operation (its body was compacted): it cannot be sent again.`, { kind: 'usage', hint: 'See what it did with `cardctl ops show KEY`.' });
    if (p.money && !p.confirmed) {
      // live is what the API says of the key (src/client/key-mode.ts): a contradicting profile or CARDCTL_MODE is refused here, an unknown mode asked first or taken as live
      const key = await checkKeyMode(this, { env: this.opts.env, log: this.opts.log });
      const what = `a LIVE money operation: ${p.method} ${url} with profile "${this.credentials.name}"${key.note}`;
      if (key.live) await (await import('./confirm.js')).confirmLive({ what, yes: this.opts.yes, ask: this.opts.confirm });
      p.confirmed = true;
    }
    // told once, when it is about to be used: a refused confirmation sends nothing to replay
    if (p.generatedKey) {
      this.opts.note?.(`Idempotency-Key: ${p.idempotencyKey} (generated; to replay this operation: --idempotency-key ${p.idempotencyKey})`);
      p.generatedKey = false;
    }
    // a --batch row syncs without blocking the event loop, so that rows overlap (docs/journal.md); on disk before its first byte leaves either way
    const journalId = replayOf ?? (journal ? await this.journalWrite(journal, () => (opts.batch ? journal.recordOpDurably(this.opRecord(p), this.now()) : journal.recordOp(this.opRecord(p), this.now())), true) : undefined);
    this.opts.onSent?.({ idempotencyKey: p.idempotencyKey, journalId });
    const run = await this.attempts(p, url, journalId, verdict.firstSentMs ?? this.now());
    // rule 1 across commands: after an earlier send with no known outcome, a send that reached nothing leaves it unknown
    const ambiguous = run.ambiguous || (verdict.earlierUnknown ?? false);
    const ctx = { method: p.method, url, money: p.money, idempotencyKey: p.idempotencyKey, localNowMs: this.now(), profileName: this.credentials.source === 'env' ? undefined : this.credentials.name, baseUrlFrom: baseUrlOrigin(this.credentials), keyId: this.credentials.keyId, journalId, body: p.body };
    const data = (run.response?.body as { data?: { id?: unknown } } | undefined)?.data;
    const resourceId = data && typeof data.id === 'string' ? data.id : null;
    const balance = (data as { balance_minor?: unknown } | undefined)?.balance_minor;
    let err = finalError(toCardctlError(run.outcome, ctx), { money: p.money, ambiguous, idempotencyKey: p.idempotencyKey, journalId });
    if (err && run.expired) err = stoppedAtLimit(err, { journalId, cardId: resourceId ?? cardIdInPath(p.path) });
    learnKeyMode(this.credentials.keyId, { route: p.route, status: run.response?.status, body: run.response?.body, code: err?.code }, this.opts.env); // a card's `mode`, a live-only route's answer
    if (journal && journalId) {
      const record = journalOutcome({ err, replay: replayOf !== undefined, ambiguous, status: run.response?.status ?? null, resourceId, balanceMinor: Number.isSafeInteger(balance) ? (balance as number) : null });
      await this.journalWrite(journal, () => (opts.batch ? journal.recordOutcomeDurably({ id: journalId, ...record }, this.now()) : journal.recordOutcome({ id: journalId, ...record }, this.now())), false);
    }
    if (err) throw toApiError(err, run.response, run.outcome);
    return run.response!;
  }

  /** The attempts of one send: retried as src/client/retry.ts decides, never past the key's 23 hours. */
  private async attempts(p: PreparedRequest, url: string, journalId: string | undefined, firstSentMs: number): Promise<{ outcome: Outcome; response?: ApiResponse; ambiguous: boolean; expired: boolean }> {
    const log = this.opts.log;
    const attemptsAllowed = this.retries + 1;
    const policy = { ...DEFAULT_RETRY_POLICY, backoffBaseMs: this.opts.backoffBaseMs ?? DEFAULT_RETRY_POLICY.backoffBaseMs, maxRetryAfterS: MAX_RETRY_AFTER_S };
    const target = `${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`;
    let ambiguous = false; // an earlier attempt may have been processed
    for (let attempt = 1; ; attempt++) {
      const ctx = { credentials: this.credentials, url, target, now: this.now, nonce: this.opts.nonce, timeoutMs: this.opts.timeoutMs ?? 30_000, log, onAnswer: this.opts.onAnswer, attempt, attemptsAllowed, journalId };
      const { outcome, response } = await sendAttempt(p, ctx);
      const decision = retryDecision({ outcome, method: p.method, money: p.money, attemptIndex: attempt - 1, nowMs: this.now() }, policy);
      if (decision.ambiguous) ambiguous = true;
      const expired = p.money && decision.retry && !keyStillRemembered(firstSentMs, this.now() + decision.delayMs);
      if (!decision.retry || attempt >= attemptsAllowed || expired) {
        if (decision.reason && log) {
          const why = expired ? `${decision.reason}, but the key was first sent over 23 h ago by then (the API forgets it after 24 h)` : decision.retry ? `${decision.reason}, and the ${this.retries} allowed retries are used` : decision.reason;
          log(`* not retried: ${why}`);
        }
        return { outcome, response, ambiguous, expired };
      }
      log?.(`* retry ${attempt} of ${this.retries} in ${decision.delayMs} ms: ${decision.reason}; ${p.idempotencyKey !== undefined ? 'same idempotency key and body, ' : ''}fresh timestamp, nonce and signature`);
      await (this.opts.sleep ?? defaultSleep)(decision.delayMs);
    }
  }

  private verdict(journal: Journal, p: PreparedRequest, batch: boolean): SendVerdict {
    const c = this.credentials;
    const bodySha256 = p.answerFromJournalOnly?.bodySha256 ?? sha256Hex(p.body);
    try {
      return sendVerdict(journal.history(p.idempotencyKey!), { idempotencyKey: p.idempotencyKey!, baseUrl: c.baseUrl, mode: c.mode, keyId: c.keyId, bodySha256, batch }, this.now());
    } catch (err) {
      if (err instanceof CardctlError) throw err; // a damaged journal says what and how to repair it
      throw new CardctlError(`cannot read the operations journal ${journal.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; the money operation was not sent.`, { kind: 'unexpected', hint: 'Make it readable, or point CARDCTL_STATE_DIR to another folder.' });
    }
  }

  /**
   * A `--batch` row's answer from the journal alone, given its key's sends (read in bulk for many
   * rows): what sendPrepared would answer without sending (rules 3 and 4), or undefined when the
   * row must go through sendPrepared (which asks the journal again, under the key's lock). Sends nothing.
   */
  async journalAnswer(req: ApiRequest, history: readonly JournalEntry[]): Promise<ApiResponse | undefined> {
    const p = await this.prepare(req);
    if (!p.money || p.idempotencyKey === undefined || history.length === 0) return undefined;
    const c = this.credentials;
    const bodySha256 = sha256Hex(p.body);
    const verdict = sendVerdict(history, { idempotencyKey: p.idempotencyKey, baseUrl: c.baseUrl, mode: c.mode, keyId: c.keyId, bodySha256, batch: true }, this.now());
    if (verdict.send) return undefined;
    return this.fromJournal(p, `${p.origin}${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`, verdict.report, false);
  }

  /**
   * The answer of a verdict reached earlier for this request's key (a `--batch` rerun's pass,
   * src/client/batch/rerun-index.ts), for a request whose body is the one it was reached for
   * (the first bytes of its SHA-256); undefined for another body (then ask journalAnswer).
   */
  async journalReportAnswer(req: ApiRequest, report: JournalReport, bodySha256Prefix: string): Promise<ApiResponse | undefined> {
    const p = await this.prepare(req);
    if (!p.money || p.idempotencyKey !== report.idempotency_key) return undefined;
    if (!sha256Hex(p.body).startsWith(bodySha256Prefix)) return undefined;
    return this.fromJournal(p, `${p.origin}${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`, report, false);
  }

  /** The client's clock (ms): what the money rules judge a key's age by. */
  clock(): number {
    return this.now();
  }

  /** The journal's answer instead of a request: a success resolves (marked `from_journal`), anything else throws. */
  private fromJournal(p: PreparedRequest, url: string, report: JournalReport, tell = true): ApiResponse {
    const now = this.now();
    const err = journalError(report, now);
    if (err) throw toApiError(err, undefined, undefined);
    if (tell) this.opts.note?.(`From the journal: ${journalReason(report, now)} It succeeded${report.id ? `: card ${report.id}` : ''}.`);
    const text = JSON.stringify(report);
    return { method: p.method, url, status: report.status ?? 200, statusText: 'from the journal', headers: {}, text, body: report, durationMs: 0, attempts: 0, money: true, idempotencyKey: p.idempotencyKey, journalId: report.journal_id, route: p.route, fromJournal: report };
  }

  private opRecord(p: PreparedRequest): Parameters<Journal['recordOp']>[0] {
    const c = this.credentials;
    return {
      profile: c.source === 'env' ? null : c.name,
      source: c.source,
      mode: c.mode,
      base_url: c.baseUrl,
      key_id: c.keyId, // the id only, never the secret: `ops replay` checks it
      method: p.method,
      path: p.path,
      query: p.query,
      idempotency_key: p.idempotencyKey!,
      body: p.body,
    };
  }

  /**
   * A money operation is not sent unless it could be journaled first; a failure to record its
   * outcome afterwards is only a warning (the answer itself must not be lost).
   */
  private journalWrite<T>(journal: Journal, write: () => T | Promise<T>, before: true): Promise<T>;
  private journalWrite<T>(journal: Journal, write: () => T | Promise<T>, before: false): Promise<T | undefined>;
  private async journalWrite<T>(journal: Journal, write: () => T | Promise<T>, before: boolean): Promise<T | undefined> {
    try {
      return await write();
    } catch (err) {
      const why = `cannot write the operations journal ${journal.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      if (before && err instanceof CardctlError && err.code === 'state_folder_unwritable') throw err; // said by the journal already
      if (before && isStateFolderProblem(err)) throw stateFolderError(err, dirname(journal.file), 'the money operation was not sent');
      if (before) throw new CardctlError(`${why}; the money operation was not sent.`, { kind: 'unexpected', hint: 'Make the folder writable, or point CARDCTL_STATE_DIR to a writable folder.' });
      this.opts.note?.(`Warning: ${why}; the outcome below is not recorded.`);
      return undefined;
    }
  }
}

function toApiError(err: CardctlError, response: ApiResponse | undefined, outcome: Outcome | undefined): ApiError {
  const apiErr = new ApiError(err.message, {
    kind: err.kind,
    hint: err.hint,
    status: err.status,
    errors: err.errors,
    code: err.code,
    idempotencyKey: err.idempotencyKey,
    data: err.data,
    cause: outcome?.type === 'transport' ? outcome.error : undefined,
  });
  apiErr.response = response;
  return apiErr;
}

export { header };
