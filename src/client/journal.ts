// The journal of money operations (PRODUCT.md, "Money operations"; docs/journal.md): an operation
// is recorded, committed and synced, BEFORE its request is sent, and what was learned after it
// (the API's answer, a person's `ops resolve`) is recorded after, so a crash or a dropped
// connection leaves an operation whose outcome is unknown and whose exact bytes and key can be
// replayed. Never holds a secret or a signature. The tables are the same on two engines: one
// SQLite file in the state folder (src/client/journal-db/sqlite.ts), or a PostgreSQL shared by a
// fleet (src/client/journal-db/postgres.ts, chosen by src/client/journal-db/target.ts); no caller
// knows which it has. What the records mean is folded in one place
// (src/client/journal-db/records.ts). Every read is an indexed lookup, so what a command costs
// does not grow with the journal.
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { CardctlError, usageError } from '../errors.js';
import { compactOf, entriesOf } from './journal-db/records.js';
import { SqliteJournal, type OpRef, type SentColumns } from './journal-db/sqlite.js';
import type { JournalTables } from './journal-db/tables.js';
import { PostgresJournal, prewarm, sharedJournal } from './journal-db/postgres.js';
import { journalPlace, type PostgresTarget } from './journal-db/target.js';
import { postgresError } from './journal-db/postgres-errors.js';
import { damagedJournal, sqliteError } from './journal-db/sqlite-errors.js';
import { takeOver } from './journal-db/takeover.js';
import type { KeyScope } from './key-lock.js';
import type { JournalEntry, JournalOp, JournalOutcome, JournalResolution } from './journal-types.js';
import { isStateFolderProblem, stateDir, stateFolderError } from './state-folder.js';

/** The state folder, or the current one when it cannot be named (a shared journal needs none). */
const stateDirOrUndefined = (env: NodeJS.ProcessEnv): string | undefined => {
  try {
    return stateDir(env);
  } catch {
    return undefined;
  }
};

export type {
  JournalCompact,
  JournalEntry,
  JournalOp,
  JournalOutcome,
  JournalRecord,
  JournalResolution,
  OutcomeState,
} from './journal-types.js';
export { compactOf, entriesOf } from './journal-db/records.js';

export { stateDir }; // src/client/state-folder.ts: also read by src/client/key-mode.ts, without this module's weight

/** The journal's database file in the state folder. */
export function journalFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'journal.db');
}

/**
 * A short random id (48 bits, hex), so the first few characters after `op_` tell operations apart
 * and `ops show` takes a short prefix.
 */
function newId(): string {
  return `op_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** Operations listed a page at a time (a list stops reading when it has enough). */
const PAGE = 256;

export interface JournalStats {
  /** the database file */
  file: string;
  bytes: number;
  ops: number;
  unresolved: number;
  /** lines of an old file journal that could not be read when it was taken over */
  unattributed: number;
}

/** The window and filter of a listing, newest first. */
export interface ListWindow {
  sinceMs?: number;
  untilMs?: number;
  unknownOnly?: boolean;
}

/** Where a journal is: the local file, or a shared PostgreSQL (src/client/journal-db/target.ts). */
export type JournalPlace = { engine: 'sqlite'; file: string } | PostgresTarget;

export class Journal {
  /** what messages name: the database file (the key locks live beside it, in locks/), or the shared journal's URL without its password */
  readonly file: string;
  /** the state folder (a local journal's home) */
  readonly dir: string;
  readonly place: JournalPlace;
  private store: JournalTables | undefined;
  /** set once this process recorded an outcome (a money operation ran: retention may be due) */
  wroteOutcome = false;
  /** writes of --batch rows waiting for the next group commit */
  private pending: Array<{ write: () => void; done: (err?: unknown) => void }> = [];

  constructor(
    place: string | JournalPlace,
    private readonly note: (line: string) => void = () => {},
    dir?: string,
  ) {
    this.place = typeof place === 'string' ? { engine: 'sqlite', file: place } : place;
    this.file = this.place.engine === 'sqlite' ? this.place.file : this.place.shown;
    this.dir = dir ?? (this.place.engine === 'sqlite' ? join(this.place.file, '..') : process.cwd());
  }

  /**
   * The journal `--journal`, CARDCTL_JOURNAL_URL or the profile's `journal` names, else the local
   * one. `note`: where the one-time takeover of an old journal, or a new journal, is said (the
   * command's stderr). A URL out of shape is a usage error here, before anything is sent.
   */
  static open(
    env: NodeJS.ProcessEnv = process.env,
    note: (line: string) => void = () => {},
    choose: { flag?: string } = {},
  ): Journal {
    const { shared, file } = journalPlace({ ...choose, env });
    if (shared) return new Journal(shared, note, stateDirOrUndefined(env));
    return new Journal(file ?? journalFile(env), note);
  }

  /** A shared journal's connection started now, before its first statement (a money command about to need it). */
  warmUp(): void {
    if (this.place.engine === 'postgres' && !this.store) prewarm(this.place);
  }

  /**
   * The journal open() would open, if it exists, else null: never creates one (`--dry-run` reads it,
   * src/client/dry-run.ts). A shared journal is read where it is; a local one only if its file exists.
   */
  static openIfExists(
    env: NodeJS.ProcessEnv = process.env,
    note: (line: string) => void = () => {},
    choose: { flag?: string } = {},
  ): Journal | null {
    const journal = Journal.open(env, note, choose); // opens nothing yet: the database is opened at its first use
    return journal.shared || existsSync(journal.file) ? journal : null;
  }

  /** Whether this journal is shared (PostgreSQL) rather than this machine's file. */
  get shared(): boolean {
    return this.place.engine === 'postgres';
  }

  /** The open database: a shared one connected, or the folder made private (0700), the file opened, old file journals taken over. */
  private db(): JournalTables {
    if (this.store) return this.store;
    if (this.place.engine === 'postgres') {
      const target = this.place;
      this.store = this.opened(() => sharedJournal(target));
      return this.store;
    }
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      chmodSync(this.dir, 0o700); // also when it existed with a wider mode or under umask 000
      closeSync(openSync(this.file, 'a', 0o600)); // a folder that cannot be written says so as the file system puts it
    } catch (err) {
      // XDG_STATE_HOME on a file or a read-only folder: the user's to fix (exit 2), not a bug
      throw isStateFolderProblem(err)
        ? stateFolderError(err, this.dir, 'money operations are refused until it can be written')
        : err;
    }
    const store = this.opened(() => new SqliteJournal(this.file));
    this.store = store;
    const report = this.opened(() => takeOver(store, this.dir, (keys) => this.refold(keys)));
    if (report)
      this.note(
        `Took over the older journal ${report.from.join(' and ')}: ${report.records} records into ${this.file} in ${(report.ms / 1000).toFixed(1)} s; the old files are kept as ${report.movedTo.join(' and ')} (remove them when you no longer need them)${report.unreadable ? `; ${report.unreadable} lines could not be read (see \`cardctl ops verify\`)` : ''}.`,
      );
    return store;
  }

  /** Runs a database call, saying what a failure means for the user (a full disk, a damaged file, a newer cardctl's journal). */
  private opened<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw this.explain(err);
    }
  }

  private explain(err: unknown): unknown {
    return this.place.engine === 'postgres' ? postgresError(err, this.place) : sqliteError(err, this.file, this.dir);
  }

  /** Records an operation before it is sent (committed and synced when this returns); returns its id. */
  recordOp(op: NewOp, now = Date.now()): string {
    const record = opRecordOf(op, now);
    const db = this.db();
    const first = this.isNew(db);
    this.opened(() => db.insertOp(opRow(record)));
    if (first) this.sayNew(db);
    return record.id;
  }

  /** Whether the journal holds no operation yet (once it holds one, it always will: asked once a process). */
  private isNew(db: JournalTables): boolean {
    if (this.holdsOps) return false;
    const empty = this.opened(() => db.isEmpty());
    this.holdsOps = true;
    return empty;
  }

  private holdsOps = false;

  /** recordOp for a --batch row: committed with the other rows waiting at that moment (one sync for all), without blocking them meanwhile. */
  async recordOpDurably(op: NewOp, now = Date.now()): Promise<string> {
    const record = opRecordOf(op, now);
    const db = this.db();
    const first = this.isNew(db);
    await this.grouped(() => db.insertOp(opRow(record)));
    if (first) this.sayNew(db);
    return record.id;
  }

  recordOutcome(outcome: Omit<JournalOutcome, 'type' | 'time'>, now = Date.now()): void {
    const rec: JournalOutcome = { type: 'outcome', time: new Date(now).toISOString(), ...outcome };
    const db = this.db();
    this.opened(() => db.transaction(() => this.after(rec)));
  }

  /** recordOutcome for a --batch row: committed with the others waiting (as recordOpDurably). */
  async recordOutcomeDurably(outcome: Omit<JournalOutcome, 'type' | 'time'>, now = Date.now()): Promise<void> {
    const rec: JournalOutcome = { type: 'outcome', time: new Date(now).toISOString(), ...outcome };
    this.db();
    await this.grouped(() => this.after(rec));
  }

  /** `ops resolve`: what a person learned, recorded after the entry's other records. */
  recordResolution(resolution: Omit<JournalResolution, 'type' | 'time'>, now = Date.now()): void {
    const rec: JournalResolution = { type: 'resolution', time: new Date(now).toISOString(), ...resolution };
    const db = this.db();
    this.opened(() => db.transaction(() => this.after(rec)));
  }

  /** An answer or resolution, and which of its key's operations are still unknown after it (a later send may resolve earlier ones). In a transaction. */
  private after(rec: JournalOutcome | JournalResolution): void {
    const db = this.store!;
    const key = db.keyOf(rec.id);
    if (key === undefined)
      throw new CardctlError(`no operation ${rec.id} in the journal ${this.file}.`, {
        kind: 'not_found',
        hint: 'List them with `cardctl ops list`.',
      });
    db.insertAnswer(rec.id, JSON.stringify(rec));
    this.refold([key]);
    this.wroteOutcome = true;
  }

  /** Sets each operation of these keys unknown or known, as its folded outcome says (two statements a page). */
  private refold(keys: readonly string[]): void {
    const db = this.store!;
    for (let i = 0; i < keys.length; i += PAGE) {
      const unknown: string[] = [];
      const known: string[] = [];
      for (const records of db.recordsOfKeys(keys.slice(i, i + PAGE)).values())
        for (const e of entriesOf(records)) (e.outcome === 'unknown' ? unknown : known).push(e.id);
      db.setUnknown(unknown, known);
    }
  }

  /**
   * The --batch rows' writes, committed together: every write asked for before the next turn of
   * the event loop goes into one transaction (one sync of the WAL), and each row goes on when it
   * is committed. A single command beside the batch waits for one such transaction at most.
   */
  private grouped(write: () => void): Promise<void> {
    if (!this.exitHook) {
      // a process that exits with writes waiting (an interrupted batch exits at once) commits them first
      this.exitHook = () => this.commitPending();
      process.once('exit', this.exitHook);
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ write, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (this.pending.length === 1) setImmediate(() => this.commitPending());
    });
  }

  private exitHook: (() => void) | undefined;

  private commitPending(): void {
    const group = this.pending;
    if (group.length === 0 || !this.store) return;
    this.pending = [];
    try {
      this.store!.transaction(() => {
        for (const g of group) g.write();
      });
    } catch (err) {
      const why = this.explain(err);
      for (const g of group) g.done(why);
      return;
    }
    for (const g of group) g.done();
  }

  /** Says once, on stderr, that this journal is new (and, a local one, that it only knows what this machine sends). */
  private sayNew(db: JournalTables): void {
    if (this.opened(() => db.meta('new_journal_said')) !== undefined) return;
    this.opened(() => db.setMeta('new_journal_said', new Date().toISOString(), false));
    if (this.shared)
      return this.note(
        `Note: this is a new shared operations journal (${this.file}): every machine that records in it knows what the others sent.`,
      );
    this.note(
      `Note: this is a new operations journal (${this.file}), local to this machine: it knows only what is sent from here. A job whose disk is new at every run (a CI runner, a container) forgets what it sent: keep CARDCTL_STATE_DIR on a volume that lasts (docs/journal.md, "Where it lives").`,
    );
  }

  /** Refuses when an old journal taken over held lines that could not be read: any key may be among them. */
  private checkUnreadable(): void {
    if (this.shared) return; // only a local journal takes over old files (a copy into a shared one refuses while there are any)
    const db = this.db();
    const n = this.opened(() => db.unreadableCount());
    if (n === 0) return;
    const first = this.opened(() => db.unreadable()[0]);
    throw new CardctlError(
      `the operations journal ${this.file} holds ${n} line${n === 1 ? '' : 's'} of an older journal that could not be read (${first?.why ?? 'unreadable'}, in ${first?.source ?? 'the old files'}): whether a key was sent before cannot be known, so the money operation was not sent.`,
      {
        kind: 'unexpected',
        code: 'journal_damaged',
        hint: 'Look at them with `cardctl ops verify`; once you know what they were, `cardctl ops verify --discard-unreadable` lets money commands run again.',
      },
    );
  }

  /** The engine itself, for what only it has (its size, its own check, its key holds). */
  private engineDb(): SqliteJournal | PostgresJournal {
    return this.db() as SqliteJournal | PostgresJournal;
  }

  /**
   * Holds a key from before its journal check to after its outcome is recorded, or refuses
   * (kind `key_in_use`, exit 9, nothing sent): on this machine a lock file beside a local journal
   * (src/client/key-lock.ts); across every machine an advisory lock in a shared one. Returns the
   * release.
   */
  async holdKey(scope: KeyScope): Promise<() => void> {
    if (this.place.engine === 'sqlite') return (await import('./key-lock.js')).lockKey(this.file, scope); // beside the file, before it is opened
    const db = this.engineDb() as PostgresJournal;
    if (!this.opened(() => db.tryHold(scope.keyId, scope.idempotencyKey))) {
      const holder = this.opened(() => db.holderOf(scope.keyId, scope.idempotencyKey));
      throw new CardctlError(
        `another cardctl process${holder ? `, ${holder},` : ''} is sending Idempotency-Key ${scope.idempotencyKey} right now (it holds the key in the shared journal ${this.file}): this one sent nothing.`,
        {
          kind: 'key_in_use',
          code: 'key_in_use',
          idempotencyKey: scope.idempotencyKey,
          hint: `Wait for it to finish, then run the same command again (the same key replays, nothing is charged twice) or look with \`cardctl ops list --key ${scope.idempotencyKey}\`. A holder that stopped answering loses the key within ${db.target.holdS} s.`,
        },
      );
    }
    return () => {
      if (!db.release(scope.keyId, scope.idempotencyKey))
        this.note(
          `Warning: the connection to the shared journal ${this.file} was lost while Idempotency-Key ${scope.idempotencyKey} was in flight: another machine may have sent it meanwhile (the API answers the same key once; see \`cardctl ops list --key ${scope.idempotencyKey}\`).`,
        );
    };
  }

  /** Every send of one idempotency key (any target), oldest first: what the money rules read before sending it again. */
  history(idempotencyKey: string, opts: { strict?: boolean } = {}): JournalEntry[] {
    return this.historyMany([idempotencyKey], opts).get(idempotencyKey) ?? [];
  }

  /**
   * The histories of many keys in one query each page (a --batch rerun asks for thousands of rows
   * at a time). `strict` (the default: what the money rules read) refuses while lines of an old
   * journal could not be read.
   */
  historyMany(keys: Iterable<string>, opts: { strict?: boolean } = {}): Map<string, JournalEntry[]> {
    const db = this.db();
    if (opts.strict !== false) this.checkUnreadable();
    const wanted = [...new Set(keys)];
    const out = new Map<string, JournalEntry[]>();
    for (let i = 0; i < wanted.length; i += PAGE)
      for (const [k, records] of this.opened(() => db.recordsOfKeys(wanted.slice(i, i + PAGE))))
        out.set(k, entriesOf(records));
    return out;
  }

  /** Whether any idempotency key starts with `prefix` (a batch's keys of the version before). */
  hasKeyStarting(prefix: string): boolean {
    if (prefix === '') return !this.opened(() => this.db().isEmpty());
    return this.opened(() => this.db().hasKeyStarting(prefix));
  }

  /** An operation by its full id, or undefined. */
  private byId(id: string): JournalEntry | undefined {
    const key = this.opened(() => this.db().keyOf(id));
    return key === undefined ? undefined : this.history(key, { strict: false }).find((e) => e.id === id);
  }

  /** By full id, an idempotency key, or an unambiguous id prefix (with or without `op_`). */
  find(idOrPrefix: string): JournalEntry | { ambiguous: string[] } | undefined {
    const wanted = idOrPrefix.startsWith('op_') ? idOrPrefix : `op_${idOrPrefix}`;
    const exact = /^op_[\w.-]{1,64}$/.test(wanted) ? this.byId(wanted) : undefined;
    if (exact) return exact;
    const byKey = this.history(idOrPrefix, { strict: false }).at(-1); // the newest send of that key
    if (byKey) return byKey;
    if (!/^op_[\w.-]{0,64}$/.test(wanted)) return undefined;
    const found = this.opened(() => this.db().idsWithPrefix(wanted, 11));
    if (found.length === 1) return this.byId(found[0]!);
    if (found.length > 1) return { ambiguous: found };
    return undefined;
  }

  /** Operations newest first, lazily, a page at a time: each page's entries folded from their keys' whole histories. */
  *newest(w: ListWindow = {}): Generator<JournalEntry> {
    const db = this.db();
    const since = w.sinceMs === undefined ? undefined : new Date(w.sinceMs).toISOString();
    const until = w.untilMs === undefined ? undefined : new Date(w.untilMs).toISOString();
    let after: OpRef | undefined;
    for (;;) {
      const page = this.opened(() => db.newest({ after, since, until, unknownOnly: w.unknownOnly, limit: PAGE }));
      if (page.length === 0) return;
      yield* this.entriesFor(page);
      after = page.at(-1);
      if (page.length < PAGE) return;
    }
  }

  /** The entries of these operations, in their order (each folded with its key's other sends). */
  private entriesFor(refs: readonly OpRef[]): JournalEntry[] {
    const histories = this.historyMany(
      refs.map((r) => r.idempotency_key),
      { strict: false },
    );
    const byId = new Map<string, JournalEntry>();
    for (const sends of histories.values()) for (const e of sends) byId.set(e.id, e);
    return refs.map((r) => byId.get(r.id)).filter((e): e is JournalEntry => e !== undefined);
  }

  /** Whether any operation was sent since `sinceMs` (one indexed lookup). */
  sentSince(sinceMs: number): boolean {
    return this.opened(() => this.db().sentSince(new Date(sinceMs).toISOString(), undefined, 1)).length > 0;
  }

  /**
   * Operations sent since `sinceMs`, oldest first, that `keep` keeps by their columns (method,
   * path, body's SHA-256, key id, idempotency key): only those are folded from their records, so
   * a busy day (864,000 sends at a key's rate limit) is looked at without parsing it.
   */
  *sentSinceMatching(sinceMs: number, keep: (o: SentColumns) => boolean): Generator<JournalEntry> {
    const db = this.db();
    const since = new Date(sinceMs).toISOString();
    let after: SentColumns | undefined;
    for (;;) {
      const page = this.opened(() => db.sentSince(since, after, 4096));
      const kept = page.filter(keep);
      for (let i = 0; i < kept.length; i += PAGE) yield* this.entriesFor(kept.slice(i, i + PAGE));
      if (page.length < 4096) return;
      after = page.at(-1);
    }
  }

  /** The operations whose outcome is not known, oldest first. */
  unresolved(): JournalEntry[] {
    return [...this.unresolvedNewest()].reverse();
  }

  /** The same, newest first and lazily. */
  unresolvedNewest(): Generator<JournalEntry> {
    return this.newest({ unknownOnly: true });
  }

  /** Every operation, oldest first (for small journals and tests; lists stream newest()). */
  entries(): JournalEntry[] {
    return [...this.newest()].reverse();
  }

  unresolvedCount(): number {
    return this.opened(() => this.db().count(true));
  }

  /** Lines of an old journal that could not be read when it was taken over (money commands refuse while there are any). */
  unreadable(): number {
    return this.opened(() => this.db().unreadableCount());
  }

  /** The lines themselves, for `ops verify`. */
  unreadableLines(): Array<{ source: string; why: string; text: string }> {
    return this.opened(() => this.db().unreadable());
  }

  /** `ops verify --discard-unreadable`: a person looked at them; money commands may run again. */
  discardUnreadable(): number {
    const db = this.db();
    return this.opened(() => db.transaction(() => db.clearUnreadable()));
  }

  /** SQLite's own check of the database file: ['ok'], or what is wrong. */
  check(): string[] {
    return this.opened(() => this.engineDb().quickCheck());
  }

  /** check(), throwing the error a money command would meet when the file is damaged. */
  checkOrThrow(): void {
    const found = this.check();
    if (found.length !== 1 || found[0] !== 'ok') throw damagedJournal(this.file, `SQLite's check: ${found[0]}`);
  }

  /** Size, operations and unresolved ones: counts of indexes, nothing read whole. */
  stats(): JournalStats {
    const db = this.db();
    return this.opened(() => ({
      file: this.file,
      bytes: this.engineDb().bytes(),
      ops: db.count(),
      unresolved: db.count(true),
      unattributed: db.unreadableCount(),
    }));
  }

  /**
   * Retention (docs/journal.md): the resolved operations first sent before `beforeMs` keep only
   * their identity and folded outcome (what the 24-hour rule and `ops show` need), `limit` at a
   * time, each page in a transaction of its own. Returns how many were compacted.
   */
  compact(beforeMs: number, limit = Number.POSITIVE_INFINITY): number {
    const db = this.db();
    const before = new Date(beforeMs).toISOString();
    const now = new Date().toISOString();
    let done = 0;
    while (done < limit) {
      const page = this.opened(() => db.resolvedBefore(before, Math.min(PAGE, limit - done)));
      if (page.length === 0) break;
      const ids = new Set(page.map((r) => r.id));
      this.opened(() =>
        db.transaction(() => {
          for (const records of db.recordsOfKeys([...new Set(page.map((r) => r.idempotency_key))]).values())
            for (const e of entriesOf(records))
              if (ids.has(e.id) && e.outcome === 'resolved' && !e.compacted_at)
                db.compactOp(e.id, JSON.stringify(compactOf(e, now)));
        }),
      );
      done += page.length;
    }
    this.opened(() => {
      db.setMeta('last_compaction', now);
      // everything resolved before this is compacted: the next check looks after it (an unknown one there stays whole)
      const mark = db.meta('compacted_before');
      if (mark === undefined || mark < before) db.setMeta('compacted_before', before);
    });
    return done;
  }

  /**
   * `ops copy`: every operation of this journal and what was learned after it, into `to` (a shared
   * journal, say), a page at a time, each page one transaction there. The same record twice is
   * kept once, so running it again copies nothing twice. Refused while lines of an old journal
   * could not be read (they would be missing there).
   */
  copyInto(to: Journal, onPage: (copied: number) => void = () => {}): { operations: number; added: number } {
    if (to.file === this.file)
      throw usageError(`the journal ${this.file} cannot be copied into itself.`, 'Give another journal with --to.');
    this.checkUnreadable();
    const from = this.db();
    const into = to.db();
    let after = 0;
    let operations = 0;
    let added = 0;
    for (;;) {
      const page = this.opened(() => from.opsAfter(after, PAGE));
      if (page.length === 0) break;
      const keys = [...new Set(page.map((r) => r.idempotency_key))];
      const records = this.opened(() => from.recordsOfKeys(keys)); // checked as a money command reads them
      to.opened(() =>
        into.transaction(() => {
          added += into.putPage([...records.values()].flat().map((r) => ({ r, text: JSON.stringify(r) })));
          to.refold(keys);
        }),
      );
      operations += page.length;
      after = page.at(-1)!.seq;
      onPage(operations);
    }
    to.opened(() => into.analyze()); // what the planner knows of the tables now: the next command's look-ups use their indexes
    return { operations, added };
  }

  /** When the oldest operation not yet past a compaction was first sent (undefined: none): what makes the next one due. One seek of the time index. */
  oldestTime(): string | undefined {
    const db = this.db();
    return this.opened(() => db.oldestTime(db.meta('compacted_before')));
  }

  /** When retention last ran here (undefined: never). */
  lastCompaction(): string | undefined {
    return this.opened(() => this.db().meta('last_compaction'));
  }

  close(): void {
    this.commitPending();
    if (this.exitHook) process.off('exit', this.exitHook);
    this.exitHook = undefined;
    if (!this.shared) this.store?.close(); // a shared journal's connection serves the whole process, and ends with it
    this.store = undefined;
  }
}

/** What recordOp is given: the request, its body as bytes. */
type NewOp = Omit<JournalOp, 'type' | 'id' | 'time' | 'body_b64' | 'body_sha256'> & { body: Buffer };

/** The op record of a new operation (a new id, the time, the body in base64 and its SHA-256). */
function opRecordOf(op: NewOp, now: number): JournalOp {
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

const opRow = (r: JournalOp) => ({
  id: r.id,
  idempotency_key: r.idempotency_key,
  time: r.time,
  key_id: r.key_id ?? null,
  method: r.method,
  path: r.path,
  body_sha256: r.body_sha256,
  record: JSON.stringify(r),
});
