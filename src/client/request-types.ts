// The requests and answers the client, the money operation and one attempt share: types, the
// error class that carries an answer, and small pure helpers over them.
import { hash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { CardctlError } from '../errors.js';
import type { RouteDef } from '../contract/routes.js';
import { wireQuery } from '../signing/encoding.js';
import type { Outcome } from './errors.js';
import type { JournalReport } from './journal-types.js';
import type { Credentials } from '../profiles/types.js';
import type { Journal } from './journal.js';
import type { Headers, VerboseLog } from './verbose.js';

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
  /** `--dry-run`: a send stops before the socket and throws what it would send (src/client/dry-run.ts DryRunStop) */
  dryRun?: boolean;
  /** `--journal`: the journal a dry run reads (src/client/journal-db/target.ts) */
  journalFlag?: string;
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

/** What an intermediary answered instead of the API (src/client/answer.ts): shown by `request --include`, never read. */
export interface NotApiResponse {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/** A CardctlError that also carries the API's answer, when there was one (or what answered instead). */
export class ApiError extends CardctlError {
  response?: ApiResponse;
  notApiResponse?: NotApiResponse;
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

/** What one send's attempts came to. */
export interface AttemptsRun {
  outcome: Outcome;
  response?: ApiResponse;
  /** an attempt may have been processed */
  ambiguous: boolean;
  /** retries stopped at the key's 23 hours */
  expired: boolean;
}

/** The URL a prepared request goes to, query included. */
export const urlOf = (p: PreparedRequest): string => `${p.origin}${p.path}${p.query ? `?${wireQuery(p.query)}` : ''}`;

/** A body's SHA-256 in hex (the one-shot hash: a --batch rerun checks a million bodies). */
export const sha256Hex = (body: Buffer): string => hash('sha256', body, 'hex');

export function toApiError(
  err: CardctlError,
  response: ApiResponse | undefined,
  outcome: Outcome | undefined,
): ApiError {
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
  if (outcome?.type === 'not_api')
    apiErr.notApiResponse = {
      status: outcome.notApi.status,
      statusText: STATUS_CODES[outcome.notApi.status] ?? '',
      headers: outcome.headers,
      text: outcome.text,
    };
  return apiErr;
}
