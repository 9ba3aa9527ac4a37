// One attempt of a request: sign it afresh (timestamp, nonce, signature), send it, read and
// parse the answer. Never retries and never throws for a transport failure: the outcome says
// what happened, and src/client/retry.ts decides what comes next.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Credentials } from '../profiles/types.js';
import { requestToSign, signRequest } from '../signing/request.js';
import { describeNotApi, judgeAnswer, namedIntermediary } from './answer.js';
import type { ApiResponse, PreparedRequest } from './request-types.js';
import { wasMaybeSent, type Outcome } from './errors.js';
import { httpRequest } from './http.js';
import { formatCanonical, formatHeaders, type Headers, type VerboseLog } from './verbose.js';
import { userAgent } from './version.js';

export interface AttemptContext {
  credentials: Credentials;
  /** the full URL, for messages */
  url: string;
  /** path and query as they go on the wire */
  target: string;
  now: () => number;
  nonce?: () => string;
  timeoutMs: number;
  log?: VerboseLog;
  onAnswer?: (status: number, headers: Headers) => void;
  /** 1-based, and how many are allowed in all (for `--verbose`) */
  attempt: number;
  attemptsAllowed: number;
  journalId?: string;
}

export interface AttemptResult {
  outcome: Outcome;
  /** the API's answer, when there was one (never an intermediary's: src/client/answer.ts) */
  response?: ApiResponse;
}

/** The signature header's value in a `--dry-run`: the real one is computed only when the request is sent. */
export const SIGNATURE_PLACEHOLDER = '<signed at send time>';

/** The headers and canonical string of one attempt: signed with the secret, or (`signed` false) with the dry run's placeholder. */
function attemptHeaders(
  p: PreparedRequest,
  ctx: Pick<AttemptContext, 'credentials' | 'now' | 'nonce'>,
  signed: boolean,
): { headers: Record<string, string>; canonical: string; bodySha256: string } {
  const input = {
    method: p.method,
    path: p.path,
    query: p.query,
    keyId: ctx.credentials.keyId,
    timestamp: Math.floor(ctx.now() / 1000),
    nonce: ctx.nonce?.() ?? randomUUID(),
    body: p.body,
  };
  const request = signed
    ? signRequest({ ...input, secret: ctx.credentials.secret })
    : { ...requestToSign(input), signature: SIGNATURE_PLACEHOLDER };
  const headers: Record<string, string> = {
    'User-Agent': userAgent(),
    Accept: 'application/json',
    ...request.headers,
    'X-Signature': request.signature,
  };
  if (p.idempotencyKey !== undefined) headers['Idempotency-Key'] = p.idempotencyKey;
  if (p.body.length > 0) headers['Content-Type'] = 'application/json';
  return { headers, canonical: request.canonical, bodySha256: request.body_sha256 };
}

const signedHeaders = (p: PreparedRequest, ctx: AttemptContext) => attemptHeaders(p, ctx, true);

/**
 * What the first attempt would send (`--dry-run`): the same headers, canonical string, timestamp and
 * nonce as a send builds them, with X-Signature a placeholder. The secret is never read here.
 */
export function previewAttempt(
  p: PreparedRequest,
  ctx: Pick<AttemptContext, 'credentials' | 'now' | 'nonce'>,
): { headers: Record<string, string>; canonical: string; bodySha256: string } {
  return attemptHeaders(p, ctx, false);
}

export async function sendAttempt(p: PreparedRequest, ctx: AttemptContext): Promise<AttemptResult> {
  const { headers, canonical, bodySha256 } = signedHeaders(p, ctx);
  const log = ctx.log;
  if (log) {
    log(`> attempt ${ctx.attempt} of ${ctx.attemptsAllowed}`);
    log(`> ${p.method} ${ctx.url}`);
    log('> canonical string (7 fields joined by \\n):');
    for (const line of formatCanonical(canonical)) log(`>${line}`);
    log(`> body: ${p.body.length} bytes, sha256 ${bodySha256}`);
    for (const line of formatHeaders(headers, '> ')) log(line);
  }
  const started = process.hrtime.bigint(); // not performance.now(): node:perf_hooks costs every command's start-up ~2 ms
  try {
    const res = await httpRequest({
      origin: p.origin,
      target: ctx.target,
      method: p.method,
      headers,
      body: p.body.length > 0 ? p.body : undefined,
      timeoutMs: ctx.timeoutMs,
    });
    const durationMs = msSince(started);
    const verdict = judgeAnswer({ ...res, method: p.method }, res.proxy);
    ctx.onAnswer?.(res.status, res.headers);
    if (log) {
      log(`< ${res.status} ${STATUS_CODES[res.status] ?? ''} (${durationMs} ms)`);
      for (const line of formatHeaders(res.headers, '< ')) log(line);
      if (!verdict.api)
        log(`< not the API's answer: ${namedIntermediary(verdict.notApi)} answered ${describeNotApi(verdict.notApi)}`);
    }
    if (!verdict.api)
      return { outcome: { type: 'not_api', notApi: verdict.notApi, headers: res.headers, text: res.text } };
    const body = verdict.body;
    return {
      outcome: { type: 'answer', status: res.status, body, headers: res.headers },
      response: {
        method: p.method,
        url: ctx.url,
        status: res.status,
        statusText: STATUS_CODES[res.status] ?? '',
        headers: res.headers,
        text: res.text,
        body,
        durationMs,
        attempts: ctx.attempt,
        money: p.money,
        idempotencyKey: p.idempotencyKey,
        journalId: ctx.journalId,
        route: p.route,
      },
    };
  } catch (error) {
    const durationMs = msSince(started);
    const maybeSent = wasMaybeSent(error);
    log?.(
      `< no answer after ${durationMs} ms: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}${maybeSent ? ' (the request may have reached the server)' : ''}`,
    );
    return { outcome: { type: 'transport', error, maybeSent } };
  }
}

/** Whole milliseconds since `started` (process.hrtime.bigint()), on the monotonic clock. */
const msSince = (started: bigint): number => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
