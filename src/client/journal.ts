// The local journal of money operations (PRODUCT.md, "Money operations"; docs/journal.md): an
// append-only folder. An `op` record is on disk (synced) BEFORE the request is sent, an `outcome`
// record after, so a crash or a dropped connection leaves an operation whose outcome is unknown
// and whose exact bytes and key can be replayed. Never holds a secret or a signature. Each read
// touches only the files it needs (src/client/journal-store/), so its cost does not grow with
// the journal's size.
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CardctlError } from '../errors.js';
import { operationIdentity } from './identity.js';
import type {
  JournalCompact,
  JournalEntry,
  JournalOp,
  JournalOutcome,
  JournalResolution,
  OutcomeState,
} from './journal-types.js';
import { isStateFolderProblem, stateDir, stateFolderError } from './state-folder.js';
import { keyBucketName } from './journal-store/layout.js';
import { isDamaged, type DamagedLine, type LineFilter, type RawRecord } from './journal-store/lines.js';
import { fewKeysRecords } from './journal-store/key-spans.js';
import { JournalStore, type OpPlace } from './journal-store/store.js';
import { takeOverIfNeeded } from './journal-store/takeover.js';

export type {
  JournalCompact,
  JournalEntry,
  JournalOp,
  JournalOutcome,
  JournalRecord,
  JournalResolution,
  OutcomeState,
} from './journal-types.js';

/** Sends that the API treats as one operation: it answers the same key and bytes, under one account, with the same outcome. */
const sameOperation = (e: JournalOp): string => operationIdentity(e);

export { stateDir }; // src/client/state-folder.ts: also read by src/client/key-mode.ts, without this module's weight

/** The file older versions wrote (one NDJSON line per record), taken over on first use. */
export function journalPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'operations.ndjson');
}

/** The journal's folder. */
export function journalDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'journal');
}

/**
 * A short random id (48 bits, hex), so the first few characters after `op_` tell operations apart
 * and `ops show` takes a short prefix. (Ids used to begin with the time, so operations of the same
 * hour shared their first characters; the entry's `time` field keeps the order.)
 */
function newId(): string {
  return `op_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

const apiSuccess = (e: JournalEntry): boolean =>
  e.outcome === 'resolved' &&
  !e.resolution &&
  e.status !== null &&
  e.status >= 200 &&
  e.status < 300 &&
  e.status !== 202;

/** An entry from its records, in the order they were written: the latest record decides (a success of the API stays). */
function fold(op: JournalOp, records: ReadonlyArray<JournalOutcome | JournalResolution>): JournalEntry {
  // Object.assign, not a spread followed by more fields: V8 builds that one many times slower (40 us
  // against 2 us an entry, measured), and a --batch rerun folds a million of them
  const entry: JournalEntry = Object.assign({}, op, {
    outcome: 'unknown' as OutcomeState,
    status: null,
    code: null,
    resource_id: null,
    outcomes: [...records],
  });
  for (const rec of records) {
    entry.outcome = 'resolved';
    if (rec.type === 'resolution') {
      entry.resolution = { outcome: rec.outcome, note: rec.note ?? null, time: rec.time };
      continue;
    }
    // a success the API answered is final: the key replays it for 24 h, so a later send that
    // learned nothing (a replay refused at connect, another process's in_flight) cannot undo it
    if (rec.outcome === 'unknown' && apiSuccess(entry)) continue;
    delete entry.resolution; // an answer of the API after a person's resolution knows better
    entry.outcome = rec.outcome;
    entry.status = rec.status;
    entry.code = rec.code ?? null;
    if (rec.resource_id) entry.resource_id = rec.resource_id;
    if (Number.isSafeInteger(rec.balance_minor)) entry.balance_minor = rec.balance_minor;
  }
  return entry;
}

/**
 * Resending with `--idempotency-key SAME` records a new entry; its answer is the outcome of the
 * earlier sends of the same operation too (entries oldest first, so walk back from the newest).
 */
function propagate(all: JournalEntry[]): JournalEntry[] {
  const revealed = new Map<string, JournalEntry>();
  for (let i = all.length - 1; i >= 0; i--) {
    const e = all[i]!;
    const k = sameOperation(e);
    const later = revealed.get(k);
    if (e.outcome === 'unknown' && later) {
      Object.assign(e, {
        outcome: 'resolved',
        status: later.status,
        code: later.code,
        resource_id: later.resource_id,
        resolved_by: later.resolved_by ?? later.id,
      });
      if (later.balance_minor !== undefined) e.balance_minor = later.balance_minor;
      if (later.resolution) e.resolution = later.resolution;
    } else if (
      e.outcome === 'resolved' &&
      !(e.outcomes.at(-1) as JournalOutcome | undefined)?.not_processed &&
      !later
    ) {
      revealed.set(k, e);
    }
  }
  return all;
}

/** The entry a compacted record stands for (no body, no attempts; its outcome as it was folded). */
function fromCompact(c: JournalCompact): JournalEntry {
  const {
    type: _t,
    outcome,
    status,
    code,
    resource_id,
    resolved_by,
    resolution,
    compacted_at,
    not_processed,
    ...identity
  } = c;
  const outcomes: JournalOutcome[] = not_processed
    ? [{ type: 'outcome', id: c.id, time: c.time, status, outcome, code, not_processed }]
    : [];
  const entry: JournalEntry = Object.assign({ type: 'op' as const }, identity, {
    profile: null,
    source: 'compacted',
    query: '',
    body_b64: '',
    outcome,
    status,
    code,
    resource_id,
    outcomes,
    compacted_at,
  });
  if (resolved_by) entry.resolved_by = resolved_by;
  if (resolution) entry.resolution = resolution;
  return entry;
}

/** The compacted record of a resolved entry (what retention keeps of it). */
export function compactOf(e: JournalEntry, now: string): JournalCompact {
  const c: JournalCompact = {
    type: 'compact',
    id: e.id,
    time: e.time,
    mode: e.mode,
    base_url: e.base_url,
    method: e.method,
    path: e.path,
    idempotency_key: e.idempotency_key,
    body_sha256: e.body_sha256,
    outcome: 'resolved',
    status: e.status,
    code: e.code,
    resource_id: e.resource_id,
    compacted_at: e.compacted_at ?? now,
  };
  if (e.key_id !== undefined) c.key_id = e.key_id;
  if (e.resolved_by) c.resolved_by = e.resolved_by;
  if (e.resolution) c.resolution = e.resolution;
  if ((e.outcomes.at(-1) as JournalOutcome | undefined)?.not_processed) c.not_processed = true;
  if (e.balance_minor !== undefined) c.balance_minor = e.balance_minor;
  return c;
}

/** The records of some operations (ops first, in any order of files) as entries, oldest first. A compacted record stands for its op and every record after it. */
export function entriesOf(records: readonly RawRecord[]): JournalEntry[] {
  const ops = new Map<string, { op: JournalOp; records: Array<JournalOutcome | JournalResolution> }>();
  const compacted = new Map<string, JournalEntry>();
  for (const r of records) {
    if (r.type === 'op') {
      if (!ops.has(r.id)) ops.set(r.id, { op: r as unknown as JournalOp, records: [] });
    } else if (r.type === 'outcome' || r.type === 'resolution') {
      ops.get(r.id)?.records.push(r as unknown as JournalOutcome | JournalResolution);
    } else if (r.type === 'compact' && !compacted.has(r.id)) {
      compacted.set(r.id, fromCompact(r as unknown as JournalCompact));
    }
  }
  const all = [...ops.values()].filter((o) => !compacted.has(o.op.id)).map((o) => fold(o.op, o.records));
  all.push(...compacted.values());
  all.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  return propagate(all);
}

/** Damaged records where the 24-hour rule would read: the money operation is refused, not risked. */
export function damagedJournalError(
  dir: string,
  where: string,
  lines: readonly DamagedLine[],
  key?: string,
): CardctlError {
  const what = `${lines.length} damaged record${lines.length === 1 ? '' : 's'} (${lines[0]?.why ?? 'unreadable'})`;
  return new CardctlError(
    `the operations journal ${dir} holds ${what} in ${where}${key ? `, where the history of Idempotency-Key ${key} is kept` : ''}: whether this key was sent before cannot be known, so the money operation was not sent.`,
    {
      kind: 'unexpected',
      code: 'journal_damaged',
      idempotencyKey: key,
      hint: 'Run `cardctl ops repair`: it restores what the journal holds twice and says what it cannot; then run the command again.',
    },
  );
}

export interface JournalStats {
  dir: string;
  bytes: number;
  ops: number;
  unresolved: number;
  /** records of the old file that could not be read (`ops repair` shows them) */
  unattributed: number;
}

export class Journal {
  /** the journal's folder (named in messages; the key locks live beside it) */
  readonly file: string;
  readonly dir: string;
  /** the file of older versions, taken over on first use */
  readonly legacyFile: string;
  private readonly store: JournalStore;
  /** ops this process wrote or read: where their later records go */
  private readonly places = new Map<string, OpPlace>();
  private ready: boolean;
  /** set once this process recorded an outcome (a money operation ran: retention may be due) */
  wroteOutcome = false;

  /** `path`: the journal folder, or (as older versions named it) the `operations.ndjson` beside it. `staged`: a takeover's staging folder (no takeover of its own). */
  constructor(path: string, staged = false) {
    this.ready = staged;
    this.dir = path.endsWith('.ndjson') ? join(path, '..', 'journal') : path;
    this.file = this.dir;
    this.legacyFile = join(this.dir, '..', 'operations.ndjson');
    this.store = new JournalStore(this.dir);
  }

  /** `note`: where the one-time take-over of the old file is said (the command's stderr) */
  static open(env: NodeJS.ProcessEnv = process.env, note: (line: string) => void = () => {}): Journal {
    const journal = new Journal(journalDir(env));
    journal.note = note;
    return journal;
  }

  private note: (line: string) => void = () => {};

  /** Takes over the old file first, once per process; the folder private (0700). */
  private prepare(): JournalStore {
    if (this.ready) return this.store;
    try {
      const parent = join(this.dir, '..');
      mkdirSync(parent, { recursive: true, mode: 0o700 });
      chmodSync(parent, 0o700); // also when it existed with a wider mode or under umask 000
      takeOverIfNeeded(this.legacyFile, this.dir, { unknownKey: stagedUnknownKey, note: this.note });
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      chmodSync(this.dir, 0o700);
    } catch (err) {
      // XDG_STATE_HOME on a file or a read-only folder: the user's to fix (exit 2), not a bug
      throw isStateFolderProblem(err)
        ? stateFolderError(err, join(this.dir, '..'), 'money operations are refused until it can be written')
        : err;
    }
    this.ready = true;
    return this.store;
  }

  /** Records an operation before it is sent (on disk when this returns); returns its id. */
  recordOp(op: NewOp, now = Date.now()): string {
    const record = opRecordOf(op, now);
    this.prepare().writeOp(record);
    this.places.set(record.id, { key: record.idempotency_key, time: record.time });
    return record.id;
  }

  /** recordOp for a --batch row: on disk when this resolves, without blocking the other rows meanwhile. */
  async recordOpDurably(op: NewOp, now = Date.now()): Promise<string> {
    const record = opRecordOf(op, now);
    await this.prepare().writeOpDurably(record);
    this.places.set(record.id, { key: record.idempotency_key, time: record.time });
    return record.id;
  }

  recordOutcome(outcome: Omit<JournalOutcome, 'type' | 'time'>, now = Date.now()): void {
    this.after({ type: 'outcome', time: new Date(now).toISOString(), ...outcome });
  }

  /** recordOutcome for a --batch row: on disk when this resolves. */
  async recordOutcomeDurably(outcome: Omit<JournalOutcome, 'type' | 'time'>, now = Date.now()): Promise<void> {
    const rec: JournalOutcome = { type: 'outcome', time: new Date(now).toISOString(), ...outcome };
    const place = this.placeFor(rec.id);
    await this.store.writeAfterDurably(rec as unknown as RawRecord, place);
    this.wroteOutcome = true;
    this.syncMarkers(place.key);
  }

  /** `ops resolve`: what a person learned, appended after the entry's other records. */
  recordResolution(resolution: Omit<JournalResolution, 'type' | 'time'>, now = Date.now()): void {
    this.after({ type: 'resolution', time: new Date(now).toISOString(), ...resolution });
  }

  private after(rec: JournalOutcome | JournalResolution): void {
    const place = this.placeFor(rec.id);
    this.store.writeAfter(rec as unknown as RawRecord, place);
    this.wroteOutcome = true;
    this.syncMarkers(place.key);
  }

  /** Where the operation's later records go; throws when the journal has no such operation. */
  private placeFor(id: string): OpPlace {
    this.prepare();
    const place = this.placeOf(id);
    if (!place)
      throw new CardctlError(`no operation ${id} in the journal ${this.dir}.`, {
        kind: 'not_found',
        hint: 'List them with `cardctl ops list`.',
      });
    return place;
  }

  /** The unresolved markers of a key's operations follow their folded outcome (a later send may resolve earlier ones). */
  private syncMarkers(key: string): void {
    let sends: JournalEntry[];
    try {
      sends = this.history(key, { strict: false });
    } catch {
      return; // a damaged bucket: `ops repair` rebuilds the markers
    }
    for (const e of sends) this.store.mark(e.id, key, e.outcome === 'unknown', e.time);
  }

  private placeOf(id: string): OpPlace | undefined {
    const known = this.places.get(id);
    if (known) return known;
    const e = this.byId(id);
    return e ? { key: e.idempotency_key, time: e.time } : undefined;
  }

  /** Refuses when the old file held records that could not be read: any key may be among them. */
  private checkUnattributed(): void {
    const file = join(this.dir, 'damaged.ndjson');
    if (existsSync(file) && statSync(file).size > 0) {
      const lines = this.store.segmentRecords(file).map((r) => ({
        damaged: true as const,
        why: 'unreadable in the old operations.ndjson',
        text: JSON.stringify(r),
      }));
      throw damagedJournalError(this.dir, 'damaged.ndjson (taken over from operations.ndjson)', lines);
    }
  }

  /** Every send of one idempotency key (any target), oldest first: what the money rules read before sending it again. */
  history(idempotencyKey: string, opts: { strict?: boolean } = {}): JournalEntry[] {
    return this.historyMany([idempotencyKey], opts).get(idempotencyKey) ?? [];
  }

  /**
   * The histories of many keys, reading each key bucket once (a `--batch` rerun asks for
   * thousands of rows at a time). Throws `journal_damaged` when a bucket they live in is damaged,
   * and (`strict`, the default: what the money rules read) when the old file held records that
   * could not be read.
   */
  historyMany(keys: Iterable<string>, opts: { strict?: boolean } = {}): Map<string, JournalEntry[]> {
    const store = this.prepare();
    if (opts.strict !== false) this.checkUnattributed();
    const out = new Map<string, JournalEntry[]>();
    for (const [bucket, wanted] of keysByBucket(keys)) {
      const { records, damaged } = store.bucketByName(bucket);
      if (damaged.length) throw damagedJournalError(this.dir, `keys/${bucket}.ndjson`, damaged, [...wanted][0]);
      if (records.length === 0 && opts.strict !== false) this.refuseIfLost(bucket, [...wanted][0]);
      for (const [k, mine] of recordsByKey(records, wanted)) this.keepHistory(out, k, mine);
    }
    return out;
  }

  /** A key bucket that holds nothing while the id index places operations in it was lost or emptied: its keys' histories cannot be known. */
  private refuseIfLost(bucket: string, key: string | undefined): void {
    const placed = this.store.indexedInBucket(bucket);
    if (placed === 0) return;
    throw new CardctlError(
      `the operations journal ${this.dir} has lost keys/${bucket}.ndjson (missing or empty), where the id index places ${placed} operation${placed === 1 ? '' : 's'}${key ? `, and where the history of Idempotency-Key ${key} is kept` : ''}: whether this key was sent before cannot be known, so the money operation was not sent.`,
      {
        kind: 'unexpected',
        code: 'journal_damaged',
        idempotencyKey: key,
        hint: 'Run `cardctl ops repair`: it rebuilds the key bucket from the second copy (the hourly segments); then run the command again.',
      },
    );
  }

  private keepHistory(out: Map<string, JournalEntry[]>, key: string, records: RawRecord[]): void {
    const sends = entriesOf(records);
    for (const e of sends) this.places.set(e.id, { key, time: e.time });
    out.set(key, sends);
  }

  /**
   * historyMany's answer for listing the operations of a few keys (`ops list --unresolved`): every
   * line of a key bucket is checksummed, but only the lines of the keys' operations are found (by
   * their bytes) and parsed (src/client/journal-store/key-spans.ts). A bucket where that cannot be
   * done exactly (a damaged line, an escaped id, an op id two keys share) is read by historyMany,
   * which says what is wrong with it.
   */
  private historiesForListing(keys: Iterable<string>): Map<string, JournalEntry[]> {
    const store = this.prepare();
    const out = new Map<string, JournalEntry[]>();
    for (const [bucket, wanted] of keysByBucket(keys)) {
      const found = fewKeysRecords(store.keyBucketBytes(bucket), wanted);
      if (found) for (const [k, records] of found) this.keepHistory(out, k, records);
      else for (const [k, sends] of this.historyMany(wanted, { strict: false })) out.set(k, sends);
    }
    return out;
  }

  /**
   * The histories of a few keys for the `--batch` shortcut (src/client/batch/journal-check.ts):
   * like historyMany, but only the lines of the wanted keys are parsed (an op line naming one of
   * them, and the later records of those ops); every line's checksum is still checked, and a key
   * whose bucket holds any damaged line is left out (the row then goes the ordinary way, where
   * historyMany refuses it and says why). Keys left out, or with no sends, are absent.
   */
  historiesForBatch(keys: Iterable<string>): Map<string, JournalEntry[]> {
    this.prepare();
    this.checkUnattributed();
    const out = new Map<string, JournalEntry[]>();
    for (const [bucket, wanted] of keysByBucket(keys))
      this.scanBucket(
        bucket,
        (k) => wanted.has(k),
        (k, sends) => out.set(k, sends),
      );
    return out;
  }

  /** The folder, taken over and checked, for a `--batch` rerun's pass (src/client/batch/rerun-pass.ts), which reads its key buckets itself. */
  readyForPass(): string {
    this.prepare();
    this.checkUnattributed();
    return this.dir;
  }

  /** The key buckets on disk (a pass over every key reads these). */
  keyBuckets(): string[] {
    return this.prepare().bucketNames();
  }

  private scanBucket(
    bucket: string,
    wanted: (key: string) => boolean,
    onKey: (key: string, sends: JournalEntry[]) => void,
  ): void {
    const found = this.store.bucketLinesFor(bucket, wanted);
    if (!found) return; // damaged: the ordinary path reports it
    for (const [k, records] of found) onKey(k, entriesOf(records));
  }

  /** An operation by its full id, or undefined. */
  private byId(id: string): JournalEntry | undefined {
    const hit = this.prepare()
      .idLookup(id)
      .found.find((r) => r.id === id);
    if (!hit) return undefined;
    const { records } = this.store.bucketByName(hit.key_bucket);
    const op = records.find((r) => (r.type === 'op' || r.type === 'compact') && r.id === id);
    return op ? this.history(op.idempotency_key as string, { strict: false }).find((e) => e.id === id) : undefined;
  }

  /** By full id, an idempotency key, or an unambiguous id prefix (with or without `op_`). */
  find(idOrPrefix: string): JournalEntry | { ambiguous: string[] } | undefined {
    const wanted = idOrPrefix.startsWith('op_') ? idOrPrefix : `op_${idOrPrefix}`;
    const store = this.prepare();
    const exact = /^op_[\w.-]{1,64}$/.test(wanted) ? this.byId(wanted) : undefined;
    if (exact) return exact;
    const byKey = this.history(idOrPrefix, { strict: false }).at(-1); // the newest send of that key
    if (byKey) return byKey;
    if (!/^op_[\w.-]{0,64}$/.test(wanted)) return undefined;
    const { found, damaged } = store.idLookup(wanted);
    if (found.length === 1) return this.byId(found[0]!.id);
    if (found.length > 1) return { ambiguous: found.map((m) => m.id) };
    if (damaged.length) {
      // a lookup, not a send: the id may be on the damaged line
      throw new CardctlError(
        `the operations journal ${this.dir} holds ${damaged.length} damaged record${damaged.length === 1 ? '' : 's'} (${damaged[0]!.why}) in the id index (ids/): operation "${idOrPrefix}" may be on ${damaged.length === 1 ? 'it' : 'one of them'}.`,
        {
          kind: 'unexpected',
          code: 'journal_damaged',
          hint: 'Run `cardctl ops repair`: it rebuilds the index from the key buckets; or give the idempotency key instead of the id.',
        },
      );
    }
    return undefined;
  }

  /** The operations whose outcome is not known, oldest first (from the unresolved markers: their number, not the journal's size, is the cost). */
  unresolved(): JournalEntry[] {
    return [...this.unresolvedNewest()].reverse();
  }

  /**
   * The same, newest first and lazily: the markers are sorted by the time they hold, and key
   * buckets are read 20 markers at a time, so the newest 20 cost about 20 bucket reads.
   */
  *unresolvedNewest(): Generator<JournalEntry> {
    const markers = this.prepare()
      .markers()
      .map((m) => (m.key === null ? this.unreadableMarker(m.id) : m))
      // ISO 8601 times in UTC sort as strings; localeCompare would build an ICU collator first (some 15 ms)
      .sort((a, b) => {
        const [x, y] = [b.time ?? '\uffff', a.time ?? '\uffff'];
        return x < y ? -1 : x > y ? 1 : 0;
      });
    for (let i = 0; i < markers.length; i += 20) {
      const group = markers.slice(i, i + 20);
      const ids = new Set(group.map((m) => m.id));
      const keys = new Set(group.map((m) => m.key).filter((k): k is string => k !== null));
      const found: JournalEntry[] = [];
      for (const sends of this.historiesForListing(keys).values())
        found.push(...sends.filter((e) => ids.has(e.id) && e.outcome === 'unknown'));
      yield* found.sort((a, b) => Date.parse(b.time) - Date.parse(a.time));
    }
  }

  /** A marker whose file cannot be read (a damaged byte, a folder in its place) still names its operation: its key and time come from the id index and the key bucket. */
  private unreadableMarker(id: string): { id: string; key: string | null; time: string | null } {
    try {
      const e = this.byId(id);
      return { id, key: e?.idempotency_key ?? null, time: e?.time ?? null };
    } catch {
      return { id, key: null, time: null };
    }
  }

  /**
   * Every operation in one segment (an hour), oldest first, with the damaged lines found there.
   * An entry still unknown there is checked against its key's whole history (a later send may have resolved it).
   */
  segmentEntries(file: string, keep?: LineFilter): { entries: JournalEntry[]; damaged: DamagedLine[] } {
    const records: RawRecord[] = [];
    const damaged: DamagedLine[] = [];
    for (const r of this.store.segmentRecords(file, keep)) (isDamaged(r) ? damaged : records).push(r as never);
    const entries = entriesOf(records).map((e) =>
      e.outcome === 'unknown' ? (this.tryHistory(e.idempotency_key).find((h) => h.id === e.id) ?? e) : e,
    );
    return { entries, damaged };
  }

  private tryHistory(key: string): JournalEntry[] {
    try {
      return this.history(key, { strict: false });
    } catch {
      return [];
    }
  }

  /** Segment files, oldest first. */
  segments(): string[] {
    return this.prepare().segments();
  }

  /** Every operation, oldest first (reads the whole journal: for small journals and tests; lists stream segments). */
  entries(): JournalEntry[] {
    return this.segments().flatMap((s) => this.segmentEntries(s).entries);
  }

  /** Operations whose outcome is not known (their markers: nothing read). */
  unresolvedCount(): number {
    return this.prepare().markerCount();
  }

  /** Lines of an old operations.ndjson that could not be read (any key may be among them: money commands refuse). */
  unreadable(): number {
    const file = join(this.prepare().root, 'damaged.ndjson');
    return existsSync(file) ? this.store.segmentRecords(file).length : 0;
  }

  /** Size, operations and unresolved ones, from file sizes and the markers: nothing is read whole. */
  stats(): JournalStats {
    const store = this.prepare();
    const damaged = join(this.dir, 'damaged.ndjson');
    return {
      dir: this.dir,
      bytes: store.bytes(),
      ops: store.opCount(),
      unresolved: store.markerCount(),
      unattributed: existsSync(damaged) ? store.segmentRecords(damaged).length : 0,
    };
  }
}

/** What recordOp is given: the request, its body as bytes. */
type NewOp = Omit<JournalOp, 'type' | 'id' | 'time' | 'body_b64' | 'body_sha256'> & { body: Buffer };

/** The op record of a new operation (a new id, the time, the body in base64 and its SHA-256). */
function opRecordOf(op: NewOp, now: number) {
  const { body, ...rest } = op;
  return {
    type: 'op' as const,
    id: newId(),
    time: new Date(now).toISOString(),
    ...rest,
    body_b64: body.toString('base64'),
    body_sha256: createHash('sha256').update(body).digest('hex'),
  };
}

/** Each wanted key's records among a key bucket's: an op or compact record names its key; every other record follows its op's id, wherever it lies. */
export function recordsByKey(records: readonly RawRecord[], wanted: ReadonlySet<string>): Map<string, RawRecord[]> {
  const ids = new Map<string, string>();
  for (const r of records)
    if ((r.type === 'op' || r.type === 'compact') && wanted.has(r.idempotency_key as string))
      ids.set(r.id, r.idempotency_key as string);
  const out = new Map<string, RawRecord[]>();
  for (const k of wanted) out.set(k, []);
  for (const r of records) {
    const k = ids.get(r.id);
    if (k !== undefined) out.get(k)!.push(r);
  }
  return out;
}

/** Keys grouped by the bucket that holds them (each bucket is then read once). */
function keysByBucket(keys: Iterable<string>): Map<string, Set<string>> {
  const byBucket = new Map<string, Set<string>>();
  for (const k of keys) {
    const b = keyBucketName(k);
    byBucket.set(b, (byBucket.get(b) ?? new Set()).add(k));
  }
  return byBucket;
}

/** During a takeover: whether a staged operation's outcome is still unknown once its key's whole history is in. */
function stagedUnknownKey(root: string, id: string, key: string): string | undefined {
  const e = new Journal(root, true).history(key, { strict: false }).find((x) => x.id === id);
  return e?.outcome === 'unknown' ? e.time : undefined;
}
