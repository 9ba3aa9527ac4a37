// The journal's records and entries, and the journal's answer instead of a request: the types the
// journal, the money rules and the error messages share (a leaf: it imports nothing).

export interface JournalOp {
  type: 'op';
  id: string;
  time: string;
  profile: string | null;
  source: string;
  mode: string;
  base_url: string;
  /** the API key id it was sent with (never the secret); absent in entries older than this field */
  key_id?: string;
  method: string;
  path: string;
  query: string;
  idempotency_key: string;
  body_b64: string;
  body_sha256: string;
  /** the machine it was sent from (its host name: a runner, a pod); absent in entries older than this field */
  host?: string;
}

export type OutcomeState = 'resolved' | 'unknown';

export interface JournalOutcome {
  type: 'outcome';
  id: string;
  time: string;
  status: number | null;
  outcome: OutcomeState;
  code?: string | null;
  /** the resource id in the answer, when there was one */
  resource_id?: string | null;
  /** the card's balance in a successful answer (what a --batch rerun reports from the journal) */
  balance_minor?: number;
  /** the product an issued card got, as the answer said (a row naming that product asks the same: src/client/batch/repeats.ts) */
  product_id?: string;
  replay?: boolean;
  /** resolved because nothing could have processed it (refused before any attempt may have gone through) */
  not_processed?: boolean;
}

/** What a person learned about an operation and recorded with `cardctl ops resolve` (appended, never deleting). */
export interface JournalResolution {
  type: 'resolution';
  id: string;
  time: string;
  outcome: 'succeeded' | 'failed';
  note?: string | null;
}

/**
 * A resolved operation older than the retention (docs/journal.md, "Retention"), reduced to what
 * the 24-hour rule and `ops show` need: its identity (key, target, key id, body hash), its time
 * and its folded outcome. Its body, query, profile and attempts are not kept.
 */
export interface JournalCompact {
  type: 'compact';
  id: string;
  time: string;
  mode: string;
  base_url: string;
  key_id?: string;
  method: string;
  path: string;
  idempotency_key: string;
  body_sha256: string;
  outcome: 'resolved';
  status: number | null;
  code: string | null;
  resource_id: string | null;
  resolved_by?: string;
  resolution?: { outcome: 'succeeded' | 'failed'; note: string | null; time: string };
  /** its last answer said nothing was processed (it then reveals nothing about other sends) */
  not_processed?: true;
  /** the card's balance in the answer that resolved it (a --batch rerun reports it) */
  balance_minor?: number;
  product_id?: string;
  host?: string;
  compacted_at: string;
}

export type JournalRecord = JournalOp | JournalOutcome | JournalResolution | JournalCompact;

export interface JournalEntry extends JournalOp {
  /** the latest outcome; `unknown` until one is recorded */
  outcome: OutcomeState;
  status: number | null;
  code: string | null;
  resource_id: string | null;
  /** the card's balance in the answer that resolved it, when it said one */
  balance_minor?: number;
  /** the product the card it issued got, when the answer said it */
  product_id?: string;
  /** every record after the op, oldest first: answers (`outcome`) and people's resolutions (`resolution`) */
  outcomes: Array<JournalOutcome | JournalResolution>;
  /** a later send of the same operation (same key, target, key id and bytes) whose answer resolved this one */
  resolved_by?: string;
  /** set when the latest record is a person's `ops resolve` */
  resolution?: { outcome: 'succeeded' | 'failed'; note: string | null; time: string };
  /** when retention reduced it to its identity and outcome (its body and attempts are no longer kept) */
  compacted_at?: string;
}

/** The journal's answer instead of a request: shown to people and in `--json`, marked as such. */
export interface JournalReport {
  from_journal: true;
  /** (the same key with another request never gets a report: rule 5 refuses it, src/client/money-rules.ts) */
  outcome: 'succeeded' | 'failed' | 'unknown';
  /** the card the operation concerns, when the journal knows it */
  id: string | null;
  /** the card's balance in the answer that resolved it (a success; older entries do not hold it) */
  balance_minor?: number;
  status: number | null;
  code: string | null;
  idempotency_key: string;
  journal_id: string;
  first_sent_at: string;
  /** the machine that first sent it, when the journal knows (a shared journal: another runner, say) */
  sent_from: string | null;
  /** `key_forgotten`: first sent over 23 h ago (rule 3); `resolved`: a batch row already resolved (rule 4) */
  why: 'key_forgotten' | 'resolved';
  /** `ops resolve`: a person recorded the outcome (with this note); `api`: an answer did */
  recorded_by: 'api' | 'ops resolve';
  note: string | null;
}
