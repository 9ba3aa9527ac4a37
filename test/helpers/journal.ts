// Reading and rewriting the journal folder in tests, as a person with a text editor would: the
// records of its segments (each op and its outcomes), and the file older versions wrote, which
// the next cardctl command takes over.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type JournalRecord = Record<string, unknown> & { type: string; id: string };

/** Every file under a folder, in name order. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : [join(dir, d.name)]));
}

/**
 * `<state>/cardctl` -> every record in the journal's segments, oldest segment first (the checksum
 * before each line dropped), after those of an old file not taken over yet.
 */
export function journalRecords(cardctlState: string): JournalRecord[] {
  const legacy = join(cardctlState, 'operations.ndjson');
  const old = existsSync(legacy)
    ? readFileSync(legacy, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as JournalRecord)
    : [];
  return old.concat(
    filesUnder(join(cardctlState, 'journal', 'segments')).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l.slice(9)) as JournalRecord),
    ),
  );
}

/** The records as NDJSON text, one per line. */
export const journalText = (cardctlState: string): string =>
  journalRecords(cardctlState)
    .map((r) => JSON.stringify(r) + '\n')
    .join('');

/** The raw bytes of every journal file, concatenated (to look for what must never be written). */
export const journalBytes = (cardctlState: string): string =>
  filesUnder(join(cardctlState, 'journal'))
    .map((f) => readFileSync(f, 'latin1'))
    .join('\n');

/**
 * Rewrites the journal through `edit` (a record, or null to drop it): written back as the file
 * older versions kept, which the next cardctl command takes over (so the indexes follow).
 */
export function rewriteJournal(cardctlState: string, edit: (r: JournalRecord) => JournalRecord | null): void {
  const records = journalRecords(cardctlState)
    .map(edit)
    .filter((r): r is JournalRecord => r !== null);
  writeFileSync(join(cardctlState, 'operations.ndjson'), records.map((r) => JSON.stringify(r) + '\n').join(''), {
    mode: 0o600,
  });
  rmSync(join(cardctlState, 'journal'), { recursive: true, force: true });
}

export interface LegacyOptions {
  /** operations to write */
  ops: number;
  baseUrl: string;
  keyId: string;
  /** the newest op's time; each earlier one `stepMs` before it */
  newestMs?: number;
  stepMs?: number;
  /** every Nth op has no outcome (unknown) */
  unknownEvery?: number;
  /** the card in each recharge's path */
  card?: string;
  keyPrefix?: string;
}

/** A journal in the format older versions wrote (an op line and an outcome line per operation), oldest first. */
export function legacyJournalText(o: LegacyOptions): string {
  const step = o.stepMs ?? 60_000;
  const newest = o.newestMs ?? Date.now();
  const body = Buffer.from('{"amount":100}');
  const lines: string[] = [];
  for (let i = 0; i < o.ops; i++) {
    const id = `op_${(0x100000000000 + i * 7919).toString(16).slice(-12)}`;
    const time = new Date(newest - (o.ops - 1 - i) * step).toISOString();
    const path = `/api/v1/cards/${o.card ?? '01JD2QA1B2C3D4E5F6G7H8J9KM'}/recharge`;
    lines.push(
      JSON.stringify({
        type: 'op',
        id,
        time,
        profile: null,
        source: 'env',
        mode: 'test',
        base_url: o.baseUrl,
        key_id: o.keyId,
        method: 'POST',
        path,
        query: '',
        idempotency_key: `${o.keyPrefix ?? 'gen'}-${i}`,
        body_b64: body.toString('base64'),
        body_sha256: 'f'.repeat(64),
      }),
    );
    if (o.unknownEvery && i % o.unknownEvery === 0) continue;
    lines.push(
      JSON.stringify({
        type: 'outcome',
        id,
        time,
        status: 200,
        outcome: 'resolved',
        code: null,
        resource_id: o.card ?? '01JD2QA1B2C3D4E5F6G7H8J9KM',
      }),
    );
  }
  return lines.join('\n') + '\n';
}
