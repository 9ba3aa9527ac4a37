// How a `--dry-run` looks (issue 38): one JSON document with --json, text for people otherwise.
// What it holds is decided in src/client/dry-run.ts (the request, the money decision) and
// src/cli/batch-dry-run.ts (a batch's rows and totals); its exit code in src/cli/dry-run.ts.
// Never a secret, never a signature: the request carries a placeholder where they would be.
import type {
  BatchDryRun,
  BatchRowPreview,
  ConfirmationPreview,
  MoneyPreview,
  RequestDryRun,
  RequestPreview,
} from '../client/dry-run.js';
import { describeCanonical, visible } from '../signing/visible.js';
import { terminalSafe } from '../terminal-text.js';
import { errorJson } from './error.js';

const errorOf = (err: unknown) => (err === undefined ? null : errorJson(err).error);

/** A sentence for why a money operation would be sent, answered or refused. */
export function moneyWhy(m: MoneyPreview): string {
  if (m.decision === 'refuse') return m.error?.message ?? 'refused';
  if (m.decision === 'answer') {
    const r = m.report!;
    const what =
      r.why === 'key_forgotten'
        ? `the key was first sent ${r.first_sent_at}, over 23 h ago (the API forgets a key after 24 h): not sent again`
        : `the journal holds its outcome (${r.journal_id}): a batch row already resolved is not sent again`;
    return `${what}; the journal answers: ${r.outcome}${r.status !== null ? ` (${r.status}${r.code ? ` ${r.code}` : ''})` : ''}${r.id ? `, card ${r.id}` : ''}.`;
  }
  if (m.earlier)
    return `a replay of ${m.earlier.id} (first sent ${m.earlier.time}${m.earlierUnknown ? ', outcome unknown' : ''}): the API answers it from its memory of the key, not charged again; recorded, then sent.`;
  if (m.journal === null)
    return `no journal exists yet (nothing was sent from here before): the real run creates it, records the operation, then sends it${m.generated_key ? ' under a new generated key' : ''}.`;
  return `the journal holds no earlier send of Idempotency-Key ${m.idempotency_key} in the account: recorded, then sent${m.generated_key ? ' (a new generated key)' : ''}.`;
}

/** How a live confirmation would go, for people. */
export function confirmationText(c: ConfirmationPreview): string {
  if (c.by === 'not_needed')
    return c.mode === 'unknown'
      ? 'not needed if the API agrees the key is a test key, as the profile (or CARDCTL_MODE) says: its mode is not known on this machine, so the real run asks the API first (a live key would be refused as a contradiction)'
      : 'not needed (a test key, as the API said of it)';
  const unknown =
    c.mode === 'unknown'
      ? "the key's mode is not known on this machine: the real run asks the API first; if live, "
      : '';
  if (c.by === 'yes') return `${unknown}confirmed by --yes`;
  if (c.by === 'ask') return `${unknown}would ask for confirmation on the terminal (or pass --yes)`;
  return `${unknown}refused: ${c.error?.message ?? 'needs --yes'}${c.error?.hint ? ` ${c.error.hint}` : ''}`;
}

const confirmationJson = (c: ConfirmationPreview | null | undefined) =>
  c ? { mode: c.mode, by: c.by, text: confirmationText(c), error: errorOf(c.error) } : null;

export function moneyJson(m: MoneyPreview | null) {
  if (!m) return null;
  return {
    decision: m.decision,
    why: moneyWhy(m),
    idempotency_key: m.idempotency_key,
    generated_key: m.generated_key,
    journal: m.journal,
    replay_of:
      m.decision === 'send' && m.earlier
        ? { journal_id: m.earlier.id, first_sent_at: m.earlier.time, outcome_unknown: m.earlierUnknown === true }
        : null,
    answer: m.report ?? null,
    error: errorOf(m.error),
    confirmation: confirmationJson(m.confirmation),
  };
}

/** The --json document of one request's dry run. */
export function requestDryRunJson(d: RequestDryRun, exitCode: number) {
  return { dry_run: true, sent: false, request: d.request, money: moneyJson(d.money), exit_code: exitCode };
}

function requestLines(r: RequestPreview): string[] {
  const lines = [`${r.method} ${visible(r.url)}`];
  for (const [name, value] of Object.entries(r.headers)) lines.push(`  ${name}: ${visible(value)}`);
  lines.push(
    r.body === null
      ? 'no body'
      : `body (${r.body_bytes} bytes${r.body_sha256 ? `, sha256 ${r.body_sha256}` : ''}):\n  ${visible(r.body)}`,
  );
  if (r.canonical !== null)
    lines.push(
      'canonical string (what X-Signature signs: SIGNING.md):',
      ...describeCanonical(r.canonical, { marks: true }),
    );
  lines.push(
    r.canonical === null
      ? `${r.fresh_at_send.join(', ')}: the secret is put in at the real send, never shown.`
      : `${r.fresh_at_send.join(', ')}: made afresh at the real send (the values above are examples).`,
  );
  return lines;
}

/** One request's dry run for people. */
export function requestDryRunText(d: RequestDryRun, exitCode: number): string {
  const lines = ['Dry run: nothing was sent, recorded or asked.', ...requestLines(d.request)];
  const m = d.money;
  if (m) {
    const verb =
      m.decision === 'send' ? 'would be sent' : m.decision === 'answer' ? 'answered from the journal' : 'refused';
    lines.push(`money operation: ${verb}: ${moneyWhy(m)}`);
    if (m.decision === 'answer' && m.error) lines.push(`  the real run ends with: ${m.error.message}`);
    if (m.generated_key)
      lines.push(
        `  Idempotency-Key ${m.idempotency_key} was generated for this dry run: pass --idempotency-key KEY to send what was shown under that key.`,
      );
    if (m.confirmation) lines.push(`confirmation: ${confirmationText(m.confirmation)}`);
  }
  lines.push(`exit code of this dry run: ${exitCode}${exitCode === 0 ? '' : ' (as the real run would end)'}`);
  return terminalSafe(lines.join('\n')) + '\n';
}

const rowJson = (r: BatchRowPreview) => ({
  row: r.row,
  line: r.line,
  decision: r.decision,
  idempotency_key: r.idempotency_key,
  target: r.target,
  amount_minor: r.amount_minor,
  method: r.method,
  path: r.path,
  body: r.body,
  replay_of: r.replay_of ?? null,
  answer: r.answer ?? null,
  error: errorOf(r.error),
  request: r.request ?? null,
});

/** The --json document of a batch's dry run: every row, the totals per card (or customer) and in all. */
export function batchDryRunJson(d: BatchDryRun, exitCode: number) {
  return {
    dry_run: true,
    sent: false,
    operation: d.operation,
    journal: d.journal,
    rows: d.rows.map(rowJson),
    per_target: d.targets,
    totals: d.totals,
    held_back: d.held_back ? { rows: d.held_back.rows, error: errorOf(d.held_back.error) } : null,
    confirmation: confirmationJson(d.confirmation),
    exit_code: exitCode,
  };
}

const DECISION_WORD: Record<BatchRowPreview['decision'], string> = {
  send: 'send',
  answer: 'journal',
  refuse: 'refused',
  held_back: 'held back',
};

function rowText(r: BatchRowPreview): string {
  const what =
    r.decision === 'answer'
      ? `answered from the journal: ${r.answer?.outcome ?? 'failed'}${r.answer?.status ? ` (${r.answer.status})` : ''}${r.error ? `: ${r.error.message}` : ', not charged again'}`
      : r.decision === 'refuse'
        ? (r.error?.message ?? 'refused')
        : r.decision === 'held_back'
          ? 'repeats a recent success under another key'
          : `${r.method} ${r.path} ${r.body}${r.replay_of ? ` (replays ${r.replay_of})` : ''}`;
  return `row ${r.row} (line ${r.line})  ${DECISION_WORD[r.decision].padEnd(9)} ${r.target}  ${r.amount_minor}  ${what}  key ${r.idempotency_key}`;
}

const counts = (t: { send: number; answer: number; refuse: number; held_back: number }): string =>
  `${t.send} sent, ${t.answer} answered from the journal, ${t.refuse} refused, ${t.held_back} held back`;

/** A batch's dry run for people: one line a row, the totals per card, the verdict on the whole. */
export function batchDryRunText(d: BatchDryRun, exitCode: number): string {
  const lines = [
    `Dry run of ${d.rows.length} row${d.rows.length === 1 ? '' : 's'} (${d.operation.replace('.', ' ')}): nothing was sent, recorded or asked.`,
    ...d.rows.map(rowText),
    'Totals per card (what would be charged: the rows sent):',
    ...d.targets.map((t) => `  ${t.target}: ${t.amount_minor} minor units; ${counts(t)}`),
    `In all: ${d.totals.amount_minor} minor units; ${counts(d.totals)}.`,
  ];
  if (d.held_back)
    lines.push(`The batch would be held back: ${d.held_back.error.message}`, `  ${d.held_back.error.hint ?? ''}`);
  if (d.confirmation) lines.push(`confirmation: ${confirmationText(d.confirmation)}`);
  lines.push(`exit code of this dry run: ${exitCode}${exitCode === 0 ? '' : ' (as the real run would end)'}`);
  return terminalSafe(lines.join('\n')) + '\n';
}
