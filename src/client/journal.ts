// The local journal of money operations (PRODUCT.md, "Money operations"): one NDJSON file,
// append-only. An `op` line is written BEFORE the request is sent, an `outcome` line after,
// so a crash or a dropped connection leaves an operation whose outcome is unknown and whose
// exact bytes and key can be replayed. Never holds a secret or a signature.
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fstatSync, fchmodSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

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

export type JournalRecord = JournalOp | JournalOutcome | JournalResolution;

export interface JournalEntry extends JournalOp {
  /** the latest outcome; `unknown` until one is recorded */
  outcome: OutcomeState;
  status: number | null;
  code: string | null;
  resource_id: string | null;
  /** every record after the op, oldest first: answers (`outcome`) and people's resolutions (`resolution`) */
  outcomes: Array<JournalOutcome | JournalResolution>;
  /** a later send of the same operation (same key, target, key id and bytes) whose answer resolved this one */
  resolved_by?: string;
  /** set when the latest record is a person's `ops resolve` */
  resolution?: { outcome: 'succeeded' | 'failed'; note: string | null; time: string };
}

/** Sends that the API treats as one operation: it answers the same key and bytes with the same outcome. */
const sameOperation = (e: JournalOp): string => JSON.stringify([e.idempotency_key, e.base_url, e.mode, e.key_id ?? null, e.body_sha256]);

/** `$CARDCTL_STATE_DIR`, else `$XDG_STATE_HOME/cardctl`, else the platform's state folder. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CARDCTL_STATE_DIR) return env.CARDCTL_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'cardctl');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'cardctl');
  if (process.platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'cardctl', 'state');
  return join(homedir(), '.local', 'state', 'cardctl');
}

export function journalPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'operations.ndjson');
}

/**
 * A short random id (48 bits, hex), so the first few characters after `op_` tell operations apart
 * and `ops show` takes a short prefix. (Ids used to begin with the time, so operations of the same
 * hour shared their first characters; the entry's `time` field keeps the order.)
 */
function newId(): string {
  return `op_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

const apiSuccess = (e: JournalEntry): boolean => e.outcome === 'resolved' && !e.resolution && e.status !== null && e.status >= 200 && e.status < 300 && e.status !== 202;

/** An entry from its records, in the order they were written: the latest record decides (a success of the API stays). */
function fold(op: JournalOp, records: ReadonlyArray<JournalOutcome | JournalResolution>): JournalEntry {
  const entry: JournalEntry = { ...op, outcome: 'unknown', status: null, code: null, resource_id: null, outcomes: [...records] };
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
      Object.assign(e, { outcome: 'resolved', status: later.status, code: later.code, resource_id: later.resource_id, resolved_by: later.resolved_by ?? later.id });
      if (later.resolution) e.resolution = later.resolution;
    } else if (e.outcome === 'resolved' && !(e.outcomes.at(-1) as JournalOutcome | undefined)?.not_processed && !later) {
      revealed.set(k, e);
    }
  }
  return all;
}

export class Journal {
  /** Records read so far (by op id, in file order) and the byte offset read up to: later reads parse only what was appended. */
  private readonly ops = new Map<string, { op: JournalOp; records: Array<JournalOutcome | JournalResolution> }>();
  private readonly byKey = new Map<string, string[]>();
  private offset = 0;

  constructor(readonly file: string) {}

  static open(env: NodeJS.ProcessEnv = process.env): Journal {
    return new Journal(journalPath(env));
  }

  private append(record: JournalRecord): void {
    const dir = join(this.file, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // also when it existed with a wider mode or under umask 000
    const fd = openSync(this.file, 'a+', 0o600);
    try {
      fchmodSync(fd, 0o600);
      // a torn last line (crash mid-write) must not swallow this record: start on a new line
      const size = fstatSync(fd).size;
      let prefix = '';
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) prefix = '\n';
      }
      writeSync(fd, prefix + JSON.stringify(record) + '\n');
    } finally {
      closeSync(fd);
    }
  }

  /** Parses the complete lines appended since the last read (by this process or another). */
  private refresh(): void {
    if (!existsSync(this.file)) return;
    const fd = openSync(this.file, 'r');
    let text: string;
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        // replaced by a shorter file: read it again from the start
        this.ops.clear();
        this.byKey.clear();
        this.offset = 0;
      }
      if (size === this.offset) return;
      const buf = Buffer.alloc(size - this.offset);
      readSync(fd, buf, 0, buf.length, this.offset);
      const end = buf.lastIndexOf(0x0a);
      if (end < 0) return; // only a torn line so far
      text = buf.subarray(0, end + 1).toString('utf8');
      this.offset += end + 1;
    } finally {
      closeSync(fd);
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let rec: JournalRecord;
      try {
        rec = JSON.parse(line) as JournalRecord;
      } catch {
        continue; // a torn line from an interrupted write
      }
      if (rec?.type === 'op' && typeof rec.id === 'string') {
        this.ops.set(rec.id, { op: rec, records: [] });
        const list = this.byKey.get(rec.idempotency_key) ?? [];
        list.push(rec.id);
        this.byKey.set(rec.idempotency_key, list);
      } else if ((rec?.type === 'outcome' || rec?.type === 'resolution') && typeof rec.id === 'string') {
        this.ops.get(rec.id)?.records.push(rec);
      }
    }
  }

  /** Records an operation before it is sent; returns its id. */
  recordOp(op: Omit<JournalOp, 'type' | 'id' | 'time' | 'body_b64' | 'body_sha256'> & { body: Buffer }, now = Date.now()): string {
    const id = newId();
    const { body, ...rest } = op;
    this.append({
      type: 'op',
      id,
      time: new Date(now).toISOString(),
      ...rest,
      body_b64: body.toString('base64'),
      body_sha256: createHash('sha256').update(body).digest('hex'),
    });
    return id;
  }

  recordOutcome(outcome: Omit<JournalOutcome, 'type' | 'time'>, now = Date.now()): void {
    this.append({ type: 'outcome', time: new Date(now).toISOString(), ...outcome });
  }

  /** `ops resolve`: what a person learned, appended after the entry's other records. */
  recordResolution(resolution: Omit<JournalResolution, 'type' | 'time'>, now = Date.now()): void {
    this.append({ type: 'resolution', time: new Date(now).toISOString(), ...resolution });
  }

  /** Every operation, oldest first, with its latest outcome. Unreadable lines are skipped. */
  entries(): JournalEntry[] {
    this.refresh();
    return propagate([...this.ops.values()].map((o) => fold(o.op, o.records)));
  }

  /** Every send of one idempotency key (any target), oldest first: what the money rules read before sending it again. */
  history(idempotencyKey: string): JournalEntry[] {
    this.refresh();
    const ids = this.byKey.get(idempotencyKey) ?? [];
    return propagate(ids.map((id) => this.ops.get(id)!).map((o) => fold(o.op, o.records)));
  }

  /** By full id or an unambiguous prefix (with or without `op_`). */
  find(idOrPrefix: string): JournalEntry | { ambiguous: string[] } | undefined {
    const wanted = idOrPrefix.startsWith('op_') ? idOrPrefix : `op_${idOrPrefix}`;
    const all = this.entries();
    const byId = all.find((e) => e.id === wanted);
    if (byId) return byId;
    const byKey = all.filter((e) => e.idempotency_key === idOrPrefix).at(-1); // the newest send of that key
    if (byKey) return byKey;
    const matches = all.filter((e) => e.id.startsWith(wanted));
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) return { ambiguous: matches.map((m) => m.id) };
    return undefined;
  }
}
