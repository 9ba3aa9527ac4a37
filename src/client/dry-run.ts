// `--dry-run` (issue 38): what a command would send, and for a money operation what the journal
// and the money rules would decide, with nothing sent, recorded or asked. The client stops here
// instead of at the socket (ApiClient.sendPrepared): the request is the one `prepare` made, its
// headers and canonical string the ones an attempt builds (src/client/attempt.ts previewAttempt,
// the signature a placeholder: the secret is never read), the decision MoneyOperation's own
// (preview: the same verdict, the same confirmation). What the command would do is carried up as
// a DryRunStop, which BaseCommand renders (src/output/dry-run.ts) with the exit code the real run
// would have for what can be known here (src/cli/dry-run.ts).
import { CardctlError } from '../errors.js';
import type { Credentials, Mode } from '../profiles/types.js';
import { previewAttempt } from './attempt.js';
import { confirmationPlan, type LiveConfirmation } from './confirm.js';
import { knownKeyMode } from './key-mode.js';
import type { Journal } from './journal.js';
import type { JournalEntry, JournalReport } from './journal-types.js';
import type { SignedClient } from './money-operation.js';
import { urlOf, type PreparedRequest } from './request-types.js';

const DRY_RUN = Symbol.for('cardctl.dry-run');

/** Headers whose values are made afresh at every real attempt: what the dry run shows of them is an example. */
export const FRESH_AT_SEND = ['X-Timestamp', 'X-Nonce', 'X-Signature'] as const;

export interface RequestPreview {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** the body's bytes as UTF-8 text (exactly what would be sent); null when there is none */
  body: string | null;
  body_bytes: number;
  body_sha256: string | null;
  /** the canonical string the signature covers (SIGNING.md); null for a request that is not signed (the mock's control plane) */
  canonical: string | null;
  /** headers made afresh at the real send (timestamp, nonce, signature), and secret headers shown as placeholders */
  fresh_at_send: string[];
}

/** How a live money operation would be confirmed (src/client/confirm.ts confirmationPlan). */
export interface ConfirmationPreview {
  /** the key's mode as remembered on this machine (`unknown`: the real run asks the API first) */
  mode: Mode | 'unknown';
  /** not needed (a test key), --yes, a question on the terminal, or refused (nobody to ask, a contradicting profile) */
  by: 'not_needed' | 'yes' | 'ask' | 'refused';
  error?: CardctlError;
}

/** What MoneyOperation.run would decide (MoneyOperation.preview). */
export interface MoneyDecision {
  decision: 'send' | 'answer' | 'refuse';
  /** send: the first send in the account of this operation (this send replays it); refuse: the send under the key with another request */
  earlier?: JournalEntry;
  /** send: an earlier send's outcome is unknown (this replay tells it) */
  earlierUnknown?: boolean;
  /** answer: the journal's report, given instead of a request */
  report?: JournalReport;
  /** refuse: why; answer: the error the journal's report comes as (a failure, an unknown outcome past 23 h) */
  error?: CardctlError;
  confirmation?: ConfirmationPreview;
}

export interface MoneyPreview extends MoneyDecision {
  idempotency_key: string;
  /** the key was generated for this dry run: the real run generates another unless it is given */
  generated_key: boolean;
  /** the journal read (null: none exists yet, so nothing was sent from here before) */
  journal: string | null;
}

export interface RequestDryRun {
  kind: 'request';
  request: RequestPreview;
  money: MoneyPreview | null;
  /** a batch row's: its row and line */
  row?: { row: number; line: number };
}

/** A `--batch` dry run: each row's decision and request, and the totals per card (src/cli/batch-dry-run.ts). */
export interface BatchDryRun {
  kind: 'batch';
  operation: string;
  rows: BatchRowPreview[];
  targets: TargetTotals[];
  totals: Omit<TargetTotals, 'target'> & { rows: number };
  /** the journal read (null: none exists yet) */
  journal: string | null;
  /** rows repeating recent successes under other keys: the whole batch would be refused (unless --allow-repeat) */
  held_back: { rows: number; error: CardctlError } | null;
  /** the batch's one live confirmation, when a row would be sent */
  confirmation: ConfirmationPreview | null;
}

export type RowDecision = 'send' | 'answer' | 'refuse' | 'held_back';

export interface BatchRowPreview {
  row: number;
  line: number;
  idempotency_key: string;
  decision: RowDecision;
  /** `card X` (recharge) or `customer X` (issue: the new card's) */
  target: string;
  amount_minor: number;
  method: string;
  path: string;
  body: string;
  /** send: a replay of an earlier send (its journal id), whose outcome is unknown or not */
  replay_of?: string;
  /** answer: the journal's report */
  answer?: JournalReport;
  /** refuse, and an answer that comes as an error */
  error?: CardctlError;
  /** send: the row's request as it would go (the placeholder for its signature) */
  request?: RequestPreview;
}

export interface TargetTotals {
  target: string;
  /** what would be charged: the amounts of the rows that would be sent */
  amount_minor: number;
  send: number;
  answer: number;
  refuse: number;
  held_back: number;
}

export type DryRun = RequestDryRun | BatchDryRun;

/** Thrown where a command would send: carries what it would have sent, up to BaseCommand. Not an error of the command. */
export class DryRunStop extends Error {
  readonly [DRY_RUN] = true;
  constructor(readonly dryRun: DryRun) {
    super('dry run: nothing was sent');
  }
}

export const isDryRunStop = (err: unknown): err is DryRunStop =>
  typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[DRY_RUN] === true;

/**
 * How a live money operation (or batch) would be confirmed, without asking the API or a person: the
 * key's mode remembered on this machine (src/client/key-mode.ts, as checkKeyMode judges it), then
 * confirmLive's own decision (src/client/confirm.ts confirmationPlan). `live(note)`: the
 * confirmation that would be asked, with the key-mode note.
 */
export function previewConfirmation(
  c: Credentials,
  env: NodeJS.ProcessEnv | undefined,
  live: (note: string) => LiveConfirmation,
): ConfirmationPreview {
  let key: ReturnType<typeof knownKeyMode>;
  try {
    key = knownKeyMode(c, env);
  } catch (err) {
    if (!(err instanceof CardctlError)) throw err;
    return { mode: c.mode, by: 'refused', error: err }; // a profile that contradicts what the API said of the key
  }
  if (key && !key.live) return { mode: 'test', by: 'not_needed' };
  // a stated test mode: the API is asked first; a test key sends without asking, a live one is refused as a contradiction
  if (!key && !c.modeDefaulted && c.mode === 'test') return { mode: 'unknown', by: 'not_needed' };
  const plan = confirmationPlan(live(key?.note ?? ''));
  const mode = key ? 'live' : 'unknown';
  return 'refused' in plan ? { mode, by: 'refused', error: plan.refused } : { mode, by: plan.by };
}

/**
 * The journal a dry run reads: the one a money command would use, if it exists; never created
 * (Journal.open would create the database). Read only through its public reads.
 */
export async function peekJournal(env: NodeJS.ProcessEnv | undefined, flag?: string): Promise<Journal | null> {
  const [{ Journal }, { oldJournals }] = await Promise.all([
    import('./journal.js'),
    import('./journal-db/old-journals.js'),
  ]);
  const chosen = Journal.open(env ?? process.env, undefined, { flag }); // opens nothing yet
  if (chosen.shared) return Journal.openIfExists(env ?? process.env, undefined, { flag }); // read where it is, if it is
  // an older file journal beside it is taken over (written into the database) when the journal opens: not by a dry run
  const old = oldJournals(chosen.dir);
  if (old.length > 0)
    throw new CardctlError(
      `the older journal ${old.join(' and ')} has not been taken over into the database yet, and a dry run writes nothing: it cannot tell what was sent before.`,
      {
        kind: 'usage',
        code: 'journal_not_taken_over',
        hint: 'Run `cardctl ops list` once (it takes the older journal over), then the dry run again.',
      },
    );
  return Journal.openIfExists(env ?? process.env, undefined, { flag });
}

/** What the request would be on the wire: `prepare`'s request, an attempt's headers and canonical string, no signature. */
export function requestPreview(
  client: Pick<SignedClient, 'credentials' | 'opts' | 'clock'>,
  p: PreparedRequest,
): RequestPreview {
  const { headers, canonical, bodySha256 } = previewAttempt(p, {
    credentials: client.credentials,
    now: () => client.clock(),
    nonce: client.opts.nonce,
  });
  return {
    method: p.method,
    url: urlOf(p),
    headers,
    body: p.body.length > 0 ? p.body.toString('utf8') : null,
    body_bytes: p.body.length,
    body_sha256: bodySha256,
    canonical,
    fresh_at_send: [...FRESH_AT_SEND],
  };
}

/** The dry run of one prepared request: its preview, and for a money operation the decision of MoneyOperation.preview. */
export async function dryRunStop(
  client: SignedClient,
  p: PreparedRequest,
  o: { replayOf?: string; batch: boolean; journal?: Journal | null },
): Promise<DryRunStop> {
  const request = requestPreview(client, p);
  if (!p.money || p.idempotencyKey === undefined) return new DryRunStop({ kind: 'request', request, money: null });
  const generated = p.generatedKey === true;
  const { MoneyOperation } = await import('./money-operation.js');
  const journal = o.journal !== undefined ? o.journal : await peekJournal(client.opts.env, client.opts.journalFlag);
  try {
    const decision = await new MoneyOperation(client, p, { replayOf: o.replayOf, batch: o.batch }).preview(journal);
    return new DryRunStop({
      kind: 'request',
      request,
      money: {
        ...decision,
        idempotency_key: p.idempotencyKey,
        generated_key: generated,
        journal: journal?.file ?? null,
      },
    });
  } finally {
    if (o.journal === undefined) await journal?.close();
  }
}
