// The signed API client: build, sign, send, retry, classify. Every attempt is signed afresh
// (timestamp, nonce, signature). A money operation goes through src/client/money-operation.ts
// (journal check, key lock, record, the attempts made here, outcome).
import { randomUUID } from 'node:crypto';
import { API_PREFIX, matchRoute, type RouteDef } from '../contract/routes.js';
import { CardctlError, usageError } from '../errors.js';
import { baseUrlOrigin, type Credentials } from '../profiles/types.js';
import { canonicalQuery } from '../signing/canonical.js';
import { encodeComponent, wireQuery } from '../signing/encoding.js';
import { visible } from '../signing/visible.js';
import { sendAttempt } from './attempt.js';
import { header, toCardctlError, type ErrorContext } from './errors.js';
import type { Journal } from './journal.js';
import type { JournalEntry } from './journal-types.js';
import { keyStillRemembered } from './money-rules.js';
import {
  ApiError,
  sha256Hex,
  toApiError,
  urlOf,
  type ApiRequest,
  type ApiResponse,
  type AttemptsRun,
  type ClientOptions,
  type PreparedRequest,
} from './request-types.js';
import { learnKeyMode } from './key-mode.js';
import { DEFAULT_RETRY_POLICY, retryDecision } from './retry.js';
import { serializeMoneyBody } from './serialize.js';

export const DEFAULT_RETRIES = 3;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Longest Retry-After we sleep through; beyond it the 429 is reported with the wait to respect. */
export const MAX_RETRY_AFTER_S = 60;

export { ApiError, type ApiRequest, type ApiResponse, type ClientOptions, type PreparedRequest };

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function encodeQueryPairs(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`).join('&');
}

export class ApiClient {
  readonly credentials: Credentials;
  readonly retries: number;
  /** what the client was made with (the money operation reads its journal, notes and confirmation from it) */
  readonly opts: ClientOptions;
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
    if (!/^[A-Z]+$/.test(method))
      throw usageError(`"${req.method}" is not an HTTP method.`, 'Use GET, POST, PATCH, PUT or DELETE.');
    let base: URL;
    try {
      base = this.baseUrl ??= new URL(this.credentials.baseUrl); // parsed once: a --batch prepares a million requests
    } catch {
      throw usageError(
        `the base URL "${this.credentials.baseUrl}" is not a URL.`,
        'Fix it in the profile (`cardctl profiles add`) or in CARDCTL_BASE_URL.',
      );
    }
    const basePath = base.pathname.replace(/\/+$/, '') || API_PREFIX;
    if (/^[a-z]+:\/\//i.test(req.path))
      throw usageError(
        `give a path, not a URL: "${req.path}".`,
        `For example /cards/ID; the base URL ${this.credentials.baseUrl} comes from the profile.`,
      );
    let rawPath = req.path.startsWith('/') ? req.path : `/${req.path}`;
    let pathQuery = '';
    const q = rawPath.indexOf('?');
    if (q >= 0) {
      pathQuery = rawPath.slice(q + 1);
      rawPath = rawPath.slice(0, q);
    }
    if (/[^\u0021-\u007e]/u.test(rawPath))
      throw usageError(
        `the path "${visible(rawPath)}" contains spaces or non-ASCII characters.`,
        'Percent-encode them.',
      );
    const full =
      rawPath === basePath || rawPath.startsWith(`${basePath}/`)
        ? rawPath
        : `${basePath}${rawPath === '/' ? '' : rawPath}`;
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
      throw usageError(
        `the query cannot be signed: ${(err as Error).message}.`,
        'Percent-encode it as UTF-8, or pass it as --query key=value pairs.',
      );
    }

    let body: Buffer;
    if (req.json !== undefined) {
      body = money
        ? await serializeMoneyBody(route?.operation, req.json)
        : Buffer.from(JSON.stringify(req.json), 'utf8');
    } else {
      body =
        req.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    }

    let idempotencyKey = req.idempotencyKey;
    let generatedKey = false;
    if (idempotencyKey !== undefined) {
      if (
        idempotencyKey === '' ||
        idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH ||
        /[^\u0020-\u007e]/u.test(idempotencyKey)
      ) {
        throw usageError(
          'the idempotency key must be 1 to 255 printable ASCII characters.',
          'Pass another --idempotency-key, or leave it out to get a generated one.',
        );
      }
      // HTTP drops a header value's surrounding spaces: the API would see another key than the journal holds (and the 24-hour rule reads)
      if (idempotencyKey.startsWith(' ') || idempotencyKey.endsWith(' ')) {
        throw usageError(
          `the idempotency key "${idempotencyKey}" begins or ends with a space, which HTTP drops: the API would take it for "${idempotencyKey.trim()}".`,
          'Pass the key without the surrounding spaces.',
        );
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
   * A prepared request: a money operation goes through its protocol (src/client/money-operation.ts:
   * journal check, key lock, record, attempts, outcome); anything else is sent as it is.
   * `replayOf`: the journal entry a money operation resends (its outcome is recorded there).
   */
  async sendPrepared(p: PreparedRequest, replayOf?: string, opts: { batch?: boolean } = {}): Promise<ApiResponse> {
    // `--dry-run`: stops here, before anything is locked, recorded, asked or sent (src/client/dry-run.ts)
    if (this.opts.dryRun)
      throw await (await import('./dry-run.js')).dryRunStop(this, p, {
        replayOf,
        batch: opts.batch ?? false,
        journal: this.opts.journal,
      });
    if (p.money) {
      const { MoneyOperation } = await import('./money-operation.js'); // a read never loads the journal's code
      return new MoneyOperation(this, p, { replayOf, batch: opts.batch ?? false }).run();
    }
    const url = urlOf(p);
    const run = await this.attempts(p, url, { firstSentMs: this.now() });
    const err = toCardctlError(run.outcome, this.errorContext(p, url));
    learnKeyMode(
      this.credentials.keyId,
      { route: p.route, status: run.response?.status, body: run.response?.body, code: err?.code },
      this.opts.env,
    ); // a card's `mode`, a live-only route's answer
    if (err) throw toApiError(err, run.response, run.outcome);
    return run.response!;
  }

  /** The journal money operations are recorded in; null when this client keeps none. */
  async journal(): Promise<Journal | null> {
    return this.opts.journal ?? (await this.opts.openJournal?.()) ?? null;
  }

  /** What the error mapping needs to know of this request (src/client/errors.ts). */
  errorContext(p: PreparedRequest, url: string, journalId?: string): ErrorContext {
    const c = this.credentials;
    return {
      method: p.method,
      url,
      money: p.money,
      idempotencyKey: p.idempotencyKey,
      localNowMs: this.now(),
      profileName: c.source === 'env' ? undefined : c.name,
      baseUrlFrom: baseUrlOrigin(c),
      keyId: c.keyId,
      journalId,
      body: p.body,
    };
  }

  /**
   * The attempts of one send, each signed afresh: retried as src/client/retry.ts decides, and a
   * money operation never past its key's 23 hours (counted from `firstSentMs`).
   */
  async attempts(
    p: PreparedRequest,
    url: string,
    o: { journalId?: string; firstSentMs: number },
  ): Promise<AttemptsRun> {
    const log = this.opts.log;
    const attemptsAllowed = this.retries + 1;
    const policy = {
      ...DEFAULT_RETRY_POLICY,
      backoffBaseMs: this.opts.backoffBaseMs ?? DEFAULT_RETRY_POLICY.backoffBaseMs,
      maxRetryAfterS: MAX_RETRY_AFTER_S,
    };
    const target = `${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`;
    let ambiguous = false; // an earlier attempt may have been processed
    for (let attempt = 1; ; attempt++) {
      const ctx = {
        credentials: this.credentials,
        url,
        target,
        now: this.now,
        nonce: this.opts.nonce,
        timeoutMs: this.opts.timeoutMs ?? 30_000,
        log,
        onAnswer: this.opts.onAnswer,
        attempt,
        attemptsAllowed,
        journalId: o.journalId,
      };
      const { outcome, response } = await sendAttempt(p, ctx);
      const decision = retryDecision(
        { outcome, method: p.method, money: p.money, attemptIndex: attempt - 1, nowMs: this.now() },
        policy,
      );
      if (decision.ambiguous) ambiguous = true;
      const expired = p.money && decision.retry && !keyStillRemembered(o.firstSentMs, this.now() + decision.delayMs);
      if (!decision.retry || attempt >= attemptsAllowed || expired) {
        if (decision.reason && log) {
          const why = expired
            ? `${decision.reason}, but the key was first sent over 23 h ago by then (the API forgets it after 24 h)`
            : decision.retry
              ? `${decision.reason}, and the ${this.retries} allowed retries are used`
              : decision.reason;
          log(`* not retried: ${why}`);
        }
        return { outcome, response, ambiguous, expired };
      }
      log?.(
        `* retry ${attempt} of ${this.retries} in ${decision.delayMs} ms: ${decision.reason}; ${p.idempotencyKey !== undefined ? 'same idempotency key and body, ' : ''}fresh timestamp, nonce and signature`,
      );
      await (this.opts.sleep ?? defaultSleep)(decision.delayMs);
    }
  }

  /**
   * A `--batch` row's answer from the journal alone, given its key's sends (read in bulk for many
   * rows): what sendPrepared would answer without sending (rules 3 and 4), or undefined when the
   * row must go through sendPrepared (which asks the journal again, under the key's lock). Sends nothing.
   */
  async journalAnswer(
    req: ApiRequest,
    history: readonly JournalEntry[],
  ): Promise<import('./money-operation.js').JournalRowAnswer | undefined> {
    const p = await this.prepare(req);
    if (!p.money || p.idempotencyKey === undefined || history.length === 0) return undefined;
    const { answerFromHistory } = await import('./money-operation.js');
    return answerFromHistory(this, p, history);
  }

  /** The client's clock (ms): what the money rules judge a key's age by. */
  clock(): number {
    return this.now();
  }
}

export { header, sha256Hex, toApiError, urlOf, type AttemptsRun };
