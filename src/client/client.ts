// The signed API client: build, sign, send, retry, classify. Every attempt is signed afresh
// (timestamp, nonce, signature); a money operation keeps its Idempotency-Key and body bytes
// across attempts and is journaled before it is sent.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import { API_PREFIX, matchRoute, type RouteDef } from '../contract/routes.js';
import { CardctlError, usageError } from '../errors.js';
import type { Credentials } from '../profiles/types.js';
import { canonicalQuery, encodeComponent, signRequest } from '../signing/index.js';
import { header, replayHint, retryAfterSeconds, toCardctlError, wasMaybeSent, type Outcome } from './errors.js';
import { getAgent } from './http.js';
import type { Journal } from './journal.js';
import { serializeMoneyBody } from './serialize.js';
import { userAgent } from './version.js';
import { visible } from '../signing/visible.js';
import { formatCanonical, formatHeaders, type Headers, type VerboseLog } from './verbose.js';

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
  /** `--yes`: live money operations go without asking */
  yes?: boolean;
  /** asks a person; undefined when nobody can answer (no TTY) */
  confirm?: (question: string) => Promise<boolean>;
  /** smallest backoff step in ms */
  backoffBaseMs?: number;
  /** every answer's status and headers, retries included (the batch limiter reads the rate limit headers) */
  onAnswer?: (status: number, headers: Headers) => void;
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
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Bytes undici cannot put on the request line are percent-encoded; decoding gives the same parameters. */
function wireQuery(raw: string): string {
  return raw.replace(/[^\u0021-\u007e]|#/gu, (ch) => encodeURIComponent(ch));
}

export function encodeQueryPairs(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&');
}

export class ApiClient {
  readonly credentials: Credentials;
  readonly retries: number;
  private readonly opts: ClientOptions;
  private readonly now: () => number;

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
      base = new URL(this.credentials.baseUrl);
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
    } else if (money) {
      idempotencyKey = randomUUID();
      generatedKey = true;
    }
    return { method, origin: base.origin, path: full, query, body, route, money, idempotencyKey, generatedKey };
  }

  /** Sends a request; resolves with a 2xx answer (202 included), throws an ApiError otherwise. */
  async send(req: ApiRequest): Promise<ApiResponse> {
    const p = await this.prepare(req);
    return this.sendPrepared(p, req.journalId);
  }

  async sendPrepared(p: PreparedRequest, replayOf?: string): Promise<ApiResponse> {
    const creds = this.credentials;
    const url = `${p.origin}${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`;
    if (p.money && creds.mode === 'live' && !this.opts.yes && !p.confirmed) await this.confirmLive(p, url);
    p.confirmed = true;
    // told once, when it is about to be used: a refused confirmation sends nothing to replay
    if (p.generatedKey) {
      this.opts.note?.(`Idempotency-Key: ${p.idempotencyKey} (generated; to replay this operation: --idempotency-key ${p.idempotencyKey})`);
      p.generatedKey = false;
    }

    let journalId = replayOf;
    const journal = p.money ? this.opts.journal : null;
    if (journal && !journalId) {
      journalId = this.journalWrite(journal, () => journal.recordOp({
        profile: creds.source === 'env' ? null : creds.name,
        source: creds.source,
        mode: creds.mode,
        base_url: creds.baseUrl,
        key_id: creds.keyId, // the id only, never the secret: `ops replay` checks it
        method: p.method,
        path: p.path,
        query: p.query,
        idempotency_key: p.idempotencyKey!,
        body: p.body,
      }), true);
    }

    const log = this.opts.log;
    const agent = await getAgent();
    const timeout = this.opts.timeoutMs ?? 30_000;
    const attemptsAllowed = this.retries + 1;
    let ambiguous = false; // an earlier attempt may have been processed
    let outcome: Outcome;
    let response: ApiResponse | undefined;
    let attempt = 0;
    for (;;) {
      attempt++;
      const timestamp = Math.floor(this.now() / 1000);
      const nonce = this.opts.nonce?.() ?? randomUUID();
      const signed = signRequest({
        method: p.method,
        path: p.path,
        query: p.query,
        keyId: creds.keyId,
        secret: creds.secret,
        timestamp,
        nonce,
        body: p.body,
      });
      const headers: Record<string, string> = {
        'User-Agent': userAgent(),
        Accept: 'application/json',
        ...signed.headers,
      };
      if (p.idempotencyKey !== undefined) headers['Idempotency-Key'] = p.idempotencyKey;
      if (p.body.length > 0) headers['Content-Type'] = 'application/json';
      if (log) {
        log(`> attempt ${attempt} of ${attemptsAllowed}`);
        log(`> ${p.method} ${url}`);
        log('> canonical string (7 fields joined by \\n):');
        for (const line of formatCanonical(signed.canonical)) log(`>${line}`);
        log(`> body: ${p.body.length} bytes, sha256 ${signed.body_sha256}`);
        for (const line of formatHeaders(headers, '> ')) log(line);
      }
      const started = performance.now();
      try {
        const res = await agent.request({
          origin: p.origin,
          path: `${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`,
          method: p.method as 'GET',
          headers,
          body: p.body.length > 0 ? p.body : undefined,
          headersTimeout: timeout,
          bodyTimeout: timeout,
        });
        const text = await res.body.text();
        const durationMs = Math.round(performance.now() - started);
        let body: unknown;
        if (text.trim() !== '') {
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
        }
        const resHeaders = res.headers as Headers;
        this.opts.onAnswer?.(res.statusCode, resHeaders);
        if (log) {
          log(`< ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''} (${durationMs} ms)`);
          for (const line of formatHeaders(resHeaders, '< ')) log(line);
        }
        outcome = { type: 'answer', status: res.statusCode, body, headers: resHeaders };
        response = {
          method: p.method,
          url,
          status: res.statusCode,
          statusText: STATUS_CODES[res.statusCode] ?? '',
          headers: resHeaders,
          text,
          body,
          durationMs,
          attempts: attempt,
          money: p.money,
          idempotencyKey: p.idempotencyKey,
          journalId,
          route: p.route,
        };
      } catch (error) {
        const durationMs = Math.round(performance.now() - started);
        const maybeSent = wasMaybeSent(error);
        log?.(`< no answer after ${durationMs} ms: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}${maybeSent ? ' (the request may have reached the server)' : ''}`);
        outcome = { type: 'transport', error, maybeSent };
        response = undefined;
      }

      const decision = this.retryDecision(outcome, p, attempt - 1);
      if (decision.retry && attempt < attemptsAllowed) {
        if (decision.ambiguous) ambiguous = true;
        log?.(`* retry ${attempt} of ${this.retries} in ${decision.delayMs} ms: ${decision.reason}; ${p.idempotencyKey !== undefined ? 'same idempotency key and body, ' : ''}fresh timestamp, nonce and signature`);
        await (this.opts.sleep ?? defaultSleep)(decision.delayMs);
        continue;
      }
      if (decision.reason && log) log(`* not retried: ${decision.retry ? `${decision.reason}, and the ${this.retries} allowed retries are used` : decision.reason}`);
      if (decision.ambiguous) ambiguous = true;
      break;
    }

    let err = toCardctlError(outcome, {
      method: p.method,
      url,
      money: p.money,
      idempotencyKey: p.idempotencyKey,
      localNowMs: this.now(),
      profileName: creds.source === 'env' ? undefined : creds.name,
      keyId: creds.keyId,
      journalId,
      body: p.body,
    });
    if (err && p.money && ambiguous && err.kind !== 'outcome_unknown' && (err.kind === 'unavailable' || err.kind === 'rate_limited')) {
      // a later refusal does not undo an earlier attempt that may have gone through
      err = new CardctlError(`${err.message} An earlier attempt may have gone through.`, {
        kind: 'outcome_unknown',
        status: err.status,
        errors: err.errors,
        code: err.code,
        idempotencyKey: p.idempotencyKey,
        hint: replayHint(p.idempotencyKey, journalId),
      });
    }
    if (journal && journalId) {
      const data = (response?.body as { data?: { id?: unknown } } | undefined)?.data;
      // Resolved only when the answer tells what became of the operation (a result, a definitive
      // refusal, a 404). A first send that nothing could have processed (connection refused, 401,
      // 429, 503 with no earlier attempt that may have gone through) is known not to have happened.
      // Anything else (a failed replay included) leaves the outcome unknown.
      const reveals = !err || err.kind === 'business' || err.kind === 'usage' || err.kind === 'not_found';
      const notProcessed = !reveals && !replayOf && !ambiguous && !!err && (err.kind === 'auth' || err.kind === 'unavailable' || err.kind === 'rate_limited');
      this.journalWrite(journal, () => journal.recordOutcome({
        id: journalId,
        status: response?.status ?? null,
        outcome: reveals || notProcessed ? 'resolved' : 'unknown',
        code: err?.code ?? null,
        resource_id: data && typeof data.id === 'string' ? data.id : null,
        ...(notProcessed ? { not_processed: true } : {}),
        ...(replayOf ? { replay: true } : {}),
      }), false);
    }
    if (err) {
      const apiErr = new ApiError(err.message, {
        kind: err.kind,
        hint: err.hint,
        status: err.status,
        errors: err.errors,
        code: err.code,
        idempotencyKey: err.idempotencyKey,
        data: err.data,
        cause: outcome.type === 'transport' ? outcome.error : undefined,
      });
      apiErr.response = response;
      throw apiErr;
    }
    return response!;
  }

  /**
   * A money operation is not sent unless it could be journaled first; a failure to record its
   * outcome afterwards is only a warning (the answer itself must not be lost).
   */
  private journalWrite<T>(journal: Journal, write: () => T, before: true): T;
  private journalWrite<T>(journal: Journal, write: () => T, before: false): T | undefined;
  private journalWrite<T>(journal: Journal, write: () => T, before: boolean): T | undefined {
    try {
      return write();
    } catch (err) {
      const why = `cannot write the operations journal ${journal.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      if (before) throw new CardctlError(`${why}; the money operation was not sent.`, { kind: 'unexpected', hint: 'Make the folder writable, or point CARDCTL_STATE_DIR to a writable folder.' });
      this.opts.note?.(`Warning: ${why}; the outcome below is not recorded.`);
      return undefined;
    }
  }

  private retryDecision(outcome: Outcome, p: PreparedRequest, n: number): { retry: boolean; reason: string; delayMs: number; ambiguous?: boolean } {
    const backoff = (attemptIndex: number): number => {
      const base = this.opts.backoffBaseMs ?? 200;
      const step = Math.min(2_000, base * 2 ** attemptIndex);
      return Math.round(step / 2 + Math.random() * (step / 2)); // jitter: half to full step
    };
    if (outcome.type === 'transport') {
      const code = (outcome.error as { code?: string }).code ?? 'connection error';
      if (!outcome.maybeSent) return { retry: true, reason: `${code}: the request did not leave this machine`, delayMs: backoff(n) };
      if (p.money) return { retry: true, reason: `${code}: the connection ended; a money operation replays safely under its idempotency key`, delayMs: backoff(n), ambiguous: true };
      if (p.method === 'GET') return { retry: true, reason: `${code}: a GET is safe to repeat`, delayMs: backoff(n) };
      return { retry: false, reason: `${code}: a ${p.method} without an idempotency key may have been processed`, delayMs: 0 };
    }
    const { status, body, headers } = outcome;
    const errors = (body as { errors?: Record<string, unknown> } | undefined)?.errors;
    const codes = errors && typeof errors === 'object' ? Object.values(errors).flat() : [];
    if (status === 409 && codes.includes('in_flight')) return { retry: true, reason: '409 in_flight: the same key is still running', delayMs: backoff(n), ambiguous: true };
    if (status === 429 || status === 503) {
      const after = retryAfterSeconds(headers, this.now());
      if (after !== undefined && after > MAX_RETRY_AFTER_S) return { retry: false, reason: `${status} with Retry-After ${after} s, longer than the ${MAX_RETRY_AFTER_S} s this command waits`, delayMs: 0 };
      const delayMs = after !== undefined ? after * 1000 + Math.round(Math.random() * 100) : backoff(n);
      return { retry: true, reason: `${status}${after !== undefined ? ` (Retry-After ${after} s)` : ''}`, delayMs };
    }
    // any 5xx but 503 (a 502/504 from a proxy too): the request may have reached the API
    if (status >= 500 && status < 600 && p.money) return { retry: true, reason: `${status} on a money operation: replaying the key reveals the outcome`, delayMs: backoff(n), ambiguous: true };
    if (status === 202) return { retry: false, reason: p.money ? '202: accepted, not final (never retried as a failure)' : '', delayMs: 0 };
    if (status >= 400 && status < 500) return { retry: false, reason: `${status}: a 4xx other than 409 in_flight and 429 is not retried`, delayMs: 0 };
    if (status >= 500) return { retry: false, reason: `${status}: not retried${p.money ? '' : ' (not a money operation)'}`, delayMs: 0 };
    return { retry: false, reason: '', delayMs: 0 };
  }

  private async confirmLive(p: PreparedRequest, url: string): Promise<void> {
    const what = `a LIVE money operation: ${p.method} ${url} with profile "${this.credentials.name}"`;
    if (!this.opts.confirm) {
      throw usageError(`refusing to send ${what} without confirmation.`, 'Pass --yes to confirm it (no terminal to ask on).');
    }
    const ok = await this.opts.confirm(`This is ${what}. Send it? [y/N] `);
    if (!ok) throw usageError('not sent: the live operation was not confirmed.', 'Run it again and answer "y", or pass --yes.');
  }
}

export { header };
