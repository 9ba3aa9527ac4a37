// One money operation (issue, recharge, terminate), start to end, over the plain signed client
// (src/client/client.ts): the journal's check of its key within the account (src/client/money-rules.ts),
// one process at a time per key (src/client/key-lock.ts), the live confirmation, the op record
// on disk before the first byte leaves, the attempts, the outcome recorded after, and a replay
// said as such (docs/money.md).
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { CardctlError } from '../errors.js';
import { journalError, journalReason, toCardctlError } from './errors.js';
import { checkKeyMode, learnKeyMode, rememberedMode } from './key-mode.js';
import { previewConfirmation, type ConfirmationPreview, type MoneyDecision } from './dry-run.js';
import { normalBase } from './identity.js';
import type { Journal } from './journal.js';
import type { JournalEntry, JournalReport } from './journal-types.js';
import {
  cardIdInPath,
  finalError,
  journalOutcome,
  keyConflictError,
  resultOf,
  sendVerdict,
  stoppedAtLimit,
  type SendVerdict,
  merchantTarget,
} from './money-rules.js';
import {
  sha256Hex,
  toApiError,
  urlOf,
  type ApiResponse,
  type AttemptsRun,
  type ClientOptions,
  type PreparedRequest,
} from './request-types.js';
import type { ErrorContext } from './errors.js';
import type { Credentials } from '../profiles/types.js';
import { isStateFolderProblem, stateFolderError } from './state-folder.js';

/** What a money operation needs of the signed client (src/client/client.ts: ApiClient). */
export interface SignedClient {
  readonly credentials: Credentials;
  readonly opts: ClientOptions;
  journal(): Promise<Journal | null>;
  errorContext(p: PreparedRequest, url: string, journalId?: string): ErrorContext;
  attempts(p: PreparedRequest, url: string, o: { journalId?: string; firstSentMs: number }): Promise<AttemptsRun>;
  clock(): number;
  /** a plain signed request (the key-mode question: src/client/key-mode.ts) */
  send(req: { method: string; path: string }): Promise<unknown>;
}

export class MoneyOperation {
  private readonly url: string;

  constructor(
    private readonly client: SignedClient,
    /** the request, prepared once: its exact bytes and key */
    private readonly request: PreparedRequest,
    /** `replayOf`: an `ops replay` of this journal id (recorded under it); `batch`: a --batch row */
    private readonly how: { replayOf?: string; batch: boolean },
  ) {
    this.url = urlOf(request);
  }

  /** Checks, sends and records the operation; resolves with its answer (202 included), throws an ApiError otherwise. */
  async run(): Promise<ApiResponse> {
    const journal = await this.client.journal();
    if (!journal || this.request.idempotencyKey === undefined) return this.send(null, { send: true });
    // one process at a time per key (on every machine of a shared journal), from the journal check to the recorded outcome
    const release = await journal.holdKey({
      keyId: this.client.credentials.keyId,
      idempotencyKey: this.request.idempotencyKey,
    });
    try {
      return await this.send(journal, await this.verdict(journal));
    } finally {
      await release();
    }
  }

  private async send(journal: Journal | null, verdict: SendVerdict): Promise<ApiResponse> {
    const p = this.request;
    if (!verdict.send) {
      if ('conflict' in verdict) throw toApiError(keyConflictError(verdict.conflict, p), undefined, undefined);
      return journalResponse(this.client, p, verdict.report);
    }
    if (p.answerFromJournalOnly) throw compactedError();
    journal?.assertSendable(); // a local journal on a network share: before a confirmation is asked or a key told
    await this.confirm();
    // told once, when it is about to be used: a refused confirmation sends nothing to replay
    if (p.generatedKey) {
      this.client.opts.note?.(
        `Idempotency-Key: ${p.idempotencyKey} (generated; to replay this operation: --idempotency-key ${p.idempotencyKey})`,
      );
      p.generatedKey = false;
    }
    const journalId = this.how.replayOf ?? (journal ? await this.record(journal) : undefined);
    this.client.opts.onSent?.({ idempotencyKey: p.idempotencyKey, journalId });
    const run = await this.client.attempts(p, this.url, {
      journalId,
      firstSentMs: verdict.firstSentMs ?? this.client.clock(),
    });
    if (verdict.earlier && run.response && answersForTheKey(run.response.status))
      this.client.opts.note?.(replayNote(verdict.earlier, this.client, run.response.status));
    return this.outcome(journal, journalId, run, verdict.earlierUnknown ?? false);
  }

  /**
   * What run() would do (`--dry-run`), from the same verdict (rules 3, 4 and 5) and the same
   * confirmation: sent (a first send, or a replay of an earlier one), answered from the journal
   * (its answer, or the error it would throw), or refused. Nothing is locked, recorded, asked or
   * sent. `journal`: the journal when one exists (a dry run never creates one).
   */
  async preview(journal: Journal | null): Promise<MoneyDecision> {
    const p = this.request;
    const verdict: SendVerdict =
      journal && p.idempotencyKey !== undefined ? await this.verdict(journal) : { send: true };
    if (!verdict.send) {
      if ('conflict' in verdict)
        return { decision: 'refuse', error: keyConflictError(verdict.conflict, p), earlier: verdict.conflict };
      return {
        decision: 'answer',
        report: verdict.report,
        error: journalError(verdict.report, this.client.clock()) ?? undefined,
      };
    }
    if (p.answerFromJournalOnly) return { decision: 'refuse', error: compactedError() };
    return {
      decision: 'send',
      earlier: verdict.earlier,
      earlierUnknown: verdict.earlierUnknown ?? false,
      confirmation: this.confirmationPreview(),
    };
  }

  /** confirm() without asking anyone or the API (src/client/dry-run.ts previewConfirmation). */
  private confirmationPreview(): ConfirmationPreview {
    if (this.request.confirmed) return { mode: 'live', by: 'yes' };
    const c = this.client.credentials;
    return previewConfirmation(c, this.client.opts.env, (note) => ({
      what: `a LIVE money operation: ${this.request.method} ${this.url} with profile "${c.name}"${note}`,
      yes: this.client.opts.yes,
      ask: this.client.opts.confirm,
    }));
  }

  /** Rules 3, 4 and 5 of src/client/money-rules.ts, over the key's sends in the journal. */
  private async verdict(journal: Journal): Promise<SendVerdict> {
    const p = this.request;
    const c = this.client.credentials;
    const bodySha256 = p.answerFromJournalOnly?.bodySha256 ?? sha256Hex(p.body);
    try {
      const history = await journal.history(p.idempotencyKey!);
      return sendVerdict(
        history,
        {
          ...accountOf(c),
          idempotencyKey: p.idempotencyKey!,
          method: p.method,
          path: p.path,
          bodySha256,
          target: merchantTarget(p.method, p.path, () => p.body),
          batch: this.how.batch,
        },
        this.client.clock(),
      );
    } catch (err) {
      if (err instanceof CardctlError) throw err; // a damaged journal says what and how to repair it
      throw new CardctlError(
        `cannot read the operations journal ${journal.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; the money operation was not sent.`,
        { kind: 'unexpected', hint: 'Make it readable, or point CARDCTL_STATE_DIR to another folder.' },
      );
    }
  }

  /**
   * The one live confirmation (a replay of a confirmed operation does not ask again). Live is what
   * the API says of the key (src/client/key-mode.ts): a contradicting profile or CARDCTL_MODE is
   * refused here, an unknown mode asked first or taken as live.
   */
  private async confirm(): Promise<void> {
    const p = this.request;
    if (p.confirmed) return;
    const c = this.client.credentials;
    const key = await checkKeyMode(this.client, { env: this.client.opts.env, log: this.client.opts.log });
    if (key.live) {
      const what = `a LIVE money operation: ${p.method} ${this.url} with profile "${c.name}"${key.note}`;
      await (await import('./confirm.js')).confirmLive({
        what,
        yes: this.client.opts.yes,
        ask: this.client.opts.confirm,
      });
    }
    p.confirmed = true;
  }

  /** The op record, on disk before the first byte leaves (a --batch row syncs without blocking the others). */
  private record(journal: Journal): Promise<string> {
    const p = this.request;
    const c = this.client.credentials;
    // the mode the API says of the key when known (an unset CARDCTL_MODE is no claim), else the profile's
    const mode = rememberedMode(c.keyId, this.client.opts.env) ?? c.mode;
    const op = {
      profile: c.source === 'env' ? null : c.name,
      source: c.source,
      mode,
      base_url: c.baseUrl,
      key_id: c.keyId,
      method: p.method,
      path: p.path,
      query: p.query,
      idempotency_key: p.idempotencyKey!,
      body: p.body,
      host: hostname(), // where it was sent from: what a machine of a fleet reads of another's send
    };
    const now = this.client.clock();
    return journalWrite(
      this.client,
      journal,
      () => (this.how.batch ? journal.recordOpDurably(op, now) : journal.recordOp(op, now)),
      true,
    );
  }

  /** The final error or answer (rule 1: an earlier send with no known outcome keeps a send that reached nothing unknown), recorded in the journal. */
  private async outcome(
    journal: Journal | null,
    journalId: string | undefined,
    run: AttemptsRun,
    earlierUnknown: boolean,
  ): Promise<ApiResponse> {
    const p = this.request;
    const ambiguous = run.ambiguous || earlierUnknown;
    const data = (
      run.response?.body as { data?: { id?: unknown; balance_minor?: unknown; product_id?: unknown } } | undefined
    )?.data;
    const resourceId = data && typeof data.id === 'string' ? data.id : null;
    const balance = data?.balance_minor;
    let err = finalError(toCardctlError(run.outcome, this.client.errorContext(p, this.url, journalId)), {
      money: true,
      ambiguous,
      idempotencyKey: p.idempotencyKey,
      journalId,
    });
    if (err && run.expired) err = stoppedAtLimit(err, { journalId, cardId: resourceId ?? cardIdInPath(p.path) });
    learnKeyMode(
      this.client.credentials.keyId,
      { route: p.route, status: run.response?.status, body: run.response?.body, code: err?.code },
      this.client.opts.env,
    ); // a card's `mode`
    if (journal && journalId) {
      const record = journalOutcome({
        err,
        replay: this.how.replayOf !== undefined,
        ambiguous,
        status: run.response?.status ?? null,
        resourceId,
        balanceMinor: Number.isSafeInteger(balance) ? (balance as number) : null,
        productId: typeof data?.product_id === 'string' ? data.product_id : null,
      });
      const now = this.client.clock();
      await journalWrite(
        this.client,
        journal,
        () =>
          this.how.batch
            ? journal.recordOutcomeDurably({ id: journalId, ...record }, now)
            : journal.recordOutcome({ id: journalId, ...record }, now),
        false,
      );
    }
    if (err) throw toApiError(err, run.response, run.outcome);
    return run.response!;
  }
}

/** A replay of a compacted operation: its body is gone, so it is never sent again. */
const compactedError = (): CardctlError =>
  new CardctlError(
    `the journal holds only the identity and outcome of this operation (its body was compacted): it cannot be sent again.`,
    { kind: 'usage', hint: 'See what it did with `cardctl ops show KEY`.' },
  );

/** An answer the API gives from what it stored under the key (a result or a definitive refusal), not a 5xx, `in_flight` or 429 that says nothing of it. */
const answersForTheKey = (status: number): boolean => status < 500 && status !== 409 && status !== 429;

/** The account the client sends for (src/client/identity.ts). */
export const accountOf = (c: SignedClient['credentials']) => ({
  keyId: c.keyId,
  formerKeyIds: c.formerKeyIds,
  baseUrl: c.baseUrl,
  mode: c.mode,
});

/**
 * One line on stderr for a send of an operation the journal saw sent before in the account: the
 * API answered it from its memory of the key, so nothing was charged again (or, when the earlier
 * outcome was unknown, this answer is that one operation's).
 */
export function replayNote(earlier: JournalEntry, client: SignedClient, status: number): string {
  const c = client.credentials;
  const via: string[] = [];
  if (earlier.profile !== (c.source === 'env' ? null : c.name))
    via.push(earlier.profile ? `profile "${earlier.profile}"` : 'the CARDCTL_* environment');
  if (normalBase(earlier.base_url) !== normalBase(c.baseUrl)) via.push(earlier.base_url);
  const where = via.length ? ` through ${via.join(', ')}` : '';
  const what =
    resultOf(earlier) === 'unknown'
      ? "its outcome was unknown; this answer is that one operation's, charged at most once"
      : `the API answered ${status} from its memory of the key: not charged again`;
  return `Replay: Idempotency-Key ${earlier.idempotency_key} was first sent ${earlier.time}${where} (${earlier.id}); ${what}.`;
}

/** The journal's answer instead of a request: a success resolves (marked `from_journal`), anything else throws. `tell`: say so on stderr (a batch row's summary says it instead). */
export function journalResponse(
  client: SignedClient,
  p: PreparedRequest,
  report: JournalReport,
  tell = true,
): ApiResponse {
  const now = client.clock();
  const err = journalError(report, now);
  if (err) throw toApiError(err, undefined, undefined);
  if (tell)
    client.opts.note?.(
      `From the journal: ${journalReason(report, now)} Not charged again: it succeeded${report.id ? ` (card ${report.id})` : ''}.`,
    );
  const text = JSON.stringify(report);
  return {
    method: p.method,
    url: urlOf(p),
    status: report.status ?? 200,
    statusText: 'from the journal',
    headers: {},
    text,
    body: report,
    durationMs: 0,
    attempts: 0,
    money: true,
    idempotencyKey: p.idempotencyKey,
    journalId: report.journal_id,
    route: p.route,
    fromJournal: report,
  };
}

/** What a --batch row's result reads of the journal's answer (src/client/batch/ledger.ts). */
export type JournalRowAnswer = Pick<ApiResponse, 'status' | 'body' | 'fromJournal'>;

/**
 * A --batch row's answer from its key's sends alone, or undefined when it must be sent (which asks
 * again under the key's lock). The same verdict and refusals as journalResponse, without the
 * response a single command prints (a rerun answers a million rows: no text of each report).
 */
export function answerFromHistory(
  client: SignedClient,
  p: PreparedRequest,
  history: readonly JournalEntry[],
): JournalRowAnswer | undefined {
  const verdict = sendVerdict(
    history,
    {
      ...accountOf(client.credentials),
      idempotencyKey: p.idempotencyKey!,
      method: p.method,
      path: p.path,
      bodySha256: sha256Hex(p.body),
      target: merchantTarget(p.method, p.path, () => p.body),
      batch: true,
    },
    client.clock(),
  );
  if (verdict.send) return undefined;
  if ('conflict' in verdict) throw toApiError(keyConflictError(verdict.conflict, p), undefined, undefined);
  const err = journalError(verdict.report, client.clock());
  if (err) throw toApiError(err, undefined, undefined);
  return { status: verdict.report.status ?? 200, body: verdict.report, fromJournal: verdict.report };
}

/**
 * A money operation is not sent unless it could be journaled first; a failure to record its
 * outcome afterwards is only a warning (the answer itself must not be lost).
 */
function journalWrite<T>(client: SignedClient, journal: Journal, write: () => T | Promise<T>, before: true): Promise<T>;
function journalWrite<T>(
  client: SignedClient,
  journal: Journal,
  write: () => T | Promise<T>,
  before: false,
): Promise<T | undefined>;
async function journalWrite<T>(
  client: SignedClient,
  journal: Journal,
  write: () => T | Promise<T>,
  before: boolean,
): Promise<T | undefined> {
  try {
    return await write();
  } catch (err) {
    if (before && err instanceof CardctlError) throw err; // said by the journal already (a full disk, its server unreachable...)
    const why =
      err instanceof CardctlError
        ? err.message.replace(/; nothing was sent\.$/, '')
        : `cannot write the operations journal ${journal.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    if (before && isStateFolderProblem(err))
      throw stateFolderError(err, dirname(journal.file), 'the money operation was not sent');
    if (before)
      throw new CardctlError(`${why}; the money operation was not sent.`, {
        kind: 'unexpected',
        hint: 'Make the folder writable, or point CARDCTL_STATE_DIR to a writable folder.',
      });
    client.opts.note?.(`Warning: ${why}; the outcome below is not recorded.`);
    return undefined;
  }
}
