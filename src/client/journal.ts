// The journal of money operations (PRODUCT.md, "Money operations"; docs/journal.md): an operation
// is recorded, committed and synced, BEFORE its request is sent, and what was learned after it
// (the API's answer, a person's `ops resolve`) is recorded after, so a crash or a dropped
// connection leaves an operation whose outcome is unknown and whose exact bytes and key can be
// replayed. Never holds a secret or a signature. The tables are the same on two engines: one
// SQLite file in the state folder (src/client/journal-db/sqlite.ts), or a PostgreSQL shared by a
// fleet (src/client/journal-db/postgres.ts, chosen by src/client/journal-db/target.ts); no caller
// knows which it has. What the records mean is folded in one place
// (src/client/journal-db/records.ts). Every read is an indexed lookup, so what a command costs
// does not grow with the journal. Every call is asynchronous (a shared journal's answers come
// over the network) and runs after the one before it on the same journal.
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { CardctlError, usageError } from '../errors.js';
import { compactOf, entriesOf } from './journal-db/records.js';
import { SqliteJournal, type OpRef, type SentColumns } from './journal-db/sqlite.js';
import type { JournalTables } from './journal-db/tables.js';
import { PostgresJournal, prewarm, sharedJournal, sharedTablesExist } from './journal-db/postgres.js';
import { journalPlace, type PostgresTarget } from './journal-db/target.js';
import { postgresError } from './journal-db/postgres-errors.js';
import { damagedJournal, sqliteError } from './journal-db/sqlite-errors.js';
import { GroupCommit } from './journal-db/group-commit.js';
import { refuseNetworkFolder } from './journal-db/network-folder.js';
import type { KeyScope } from './key-lock.js';
import type { JournalEntry, JournalOp, JournalOutcome, JournalResolution } from './journal-types.js';
import { beforeInterruptedExit } from './exiting.js';
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
  private store: Promise<JournalTables> | undefined;
  /** set once this process recorded an outcome (a money operation ran: retention may be due) */
  wroteOutcome = false;
  /** writes of --batch rows, committed together */
  private readonly group = new GroupCommit((writes) =>
    this.serial((db) =>
      db.transaction(async () => {
        for (const write of writes) await write();
      }),
    ),
  );
  /** the end of the last call given to the database: each call starts after it (one at a time, never mixed) */
  private queue: Promise<unknown> = Promise.resolve();

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
   * src/client/dry-run.ts). A shared one if its tables are there (one look-up; a database no
   * cardctl used yet is left as it is), a local one if its file exists.
   */
  static async openIfExists(
    env: NodeJS.ProcessEnv = process.env,
    note: (line: string) => void = () => {},
    choose: { flag?: string } = {},
  ): Promise<Journal | null> {
    const journal = Journal.open(env, note, choose); // opens nothing yet: the database is opened at its first use
    if (journal.place.engine === 'sqlite') return existsSync(journal.file) ? journal : null;
    const place = journal.place;
    try {
      return (await sharedTablesExist(place)) ? journal : null;
    } catch (err) {
      throw postgresError(err, place);
    }
  }

  /** Whether this journal is shared (PostgreSQL) rather than this machine's file. */
  get shared(): boolean {
    return this.place.engine === 'postgres';
  }

  /**
   * Runs one call on the database after every call before it has ended: a call's statements (a
   * transaction's among them) are never mixed with another's, whatever runs meanwhile (a batch's
   * rows, a shared journal's answers arriving). A failure says what it means for the user.
   */
  private serial<T>(fn: (db: JournalTables) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      try {
        return await fn(await this.db());
      } catch (err) {
        throw this.explain(err);
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** The open database: a shared one connected, or the folder made private (0700), the file opened, old file journals taken over. */
  private db(): Promise<JournalTables> {
    if (!this.store) {
      beforeInterruptedExit(() => this.stop());
      this.store = this.opening();
      this.store.catch(() => (this.store = undefined)); // the next call tries again, and says why it cannot
    }
    return this.store;
  }

  /** The database opened, its meta rows read (what the new-journal note and retention ask, without a statement each). */
  private async opening(): Promise<JournalTables> {
    const store = this.place.engine === 'postgres' ? await sharedJournal(this.place) : await this.openLocal();
    if (store.engine === 'sqlite') await store.metaAll(); // a shared journal read them when it connected
    return store;
  }

  private async openLocal(): Promise<JournalTables> {
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
    const store = new SqliteJournal(this.file);
    try {
      const report = await store.takeOver(this.dir);
      if (report)
        this.note(
          `Took over the older journal ${report.from.join(' and ')}: ${report.records} records into ${this.file} in ${(report.ms / 1000).toFixed(1)} s; the old files are kept as ${report.movedTo.join(' and ')} (remove them when you no longer need them)${report.unreadable ? `; ${report.unreadable} lines could not be read (see \`cardctl ops verify\`)` : ''}.`,
        );
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  private explain(err: unknown): unknown {
    return this.place.engine === 'postgres' ? postgresError(err, this.place) : sqliteError(err, this.file, this.dir);
  }

  /** Records an operation before it is sent (committed and synced when this resolves); returns its id. */
  recordOp(op: NewOp, now = Date.now()): Promise<string> {
    const record = opRecordOf(op, now);
    return this.serial(async (db) => {
      this.group.refuseWhenStopped();
      const first = await this.isNew(db);
      await db.insertOp(opRow(record));
      if (first) await this.sayNew(db);
      return record.id;
    });
  }

  /** Whether the journal holds no operation yet (once it holds one, it always will: asked once a process, and never once the note was said). */
  private async isNew(db: JournalTables): Promise<boolean> {
    if (this.holdsOps || db.known.has('new_journal_said')) return false;
    const empty = await db.isEmpty();
    this.holdsOps = true;
    return empty;
  }

  private holdsOps = false;

  /**
   * Throws when no money may be sent with this journal: a local one on a network file system
   * (src/client/journal-db/network-folder.ts). Looked at once a process, before a send or a replay.
   */
  assertSendable(): void {
    if (this.place.engine !== 'sqlite' || this.folderIsLocal) return;
    refuseNetworkFolder(this.dir);
    this.folderIsLocal = true;
  }

  private folderIsLocal = false;

  /** recordOp for a --batch row: committed with the other rows waiting at that moment (one sync for all), without blocking them meanwhile. */
  async recordOpDurably(op: NewOp, now = Date.now()): Promise<string> {
    const record = opRecordOf(op, now);
    await this.group.add(async () => {
      const db = await this.db();
      const first = await this.isNew(db);
      await db.insertOp(opRow(record));
      if (first) await this.sayNew(db);
    }, true);
    return record.id;
  }

  recordOutcome(outcome: Omit<JournalOutcome, 'type' | 'time'>, now = Date.now()): Promise<void> {
    const rec: JournalOutcome = { type: 'outcome', time: new Date(now).toISOString(), ...outcome };
    return this.serial((db) => db.transaction(() => this.after(db, rec)));
  }

  /** recordOutcome for a --batch row: committed with the others waiting (as recordOpDurably). */
  recordOutcomeDurably(outcome: Omit<JournalOutcome, 'type' | 'time'>, now = Date.now()): Promise<void> {
    const rec: JournalOutcome = { type: 'outcome', time: new Date(now).toISOString(), ...outcome };
    return this.group.add(async () => this.after(await this.db(), rec), false);
  }

  /** `ops resolve`: what a person learned, recorded after the entry's other records. */
  recordResolution(resolution: Omit<JournalResolution, 'type' | 'time'>, now = Date.now()): Promise<void> {
    const rec: JournalResolution = { type: 'resolution', time: new Date(now).toISOString(), ...resolution };
    return this.serial((db) => db.transaction(() => this.after(db, rec)));
  }

  /** An answer or resolution, and which of its key's operations are still unknown after it (a later send may resolve earlier ones). In a transaction. */
  private async after(db: JournalTables, rec: JournalOutcome | JournalResolution): Promise<void> {
    const key = await db.insertAnswer(rec.id, JSON.stringify(rec));
    if (key === undefined)
      throw new CardctlError(`no operation ${rec.id} in the journal ${this.file}.`, {
        kind: 'not_found',
        hint: 'List them with `cardctl ops list`.',
      });
    await this.refold(db, [key]);
    this.wroteOutcome = true;
  }

  /** Sets each operation of these keys unknown or known, as its folded outcome says (a page: its read, then a statement for those whose mark changes). */
  private async refold(db: JournalTables, keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += PAGE) {
      const unknown: string[] = [];
      const known: string[] = [];
      const marked = new Map<string, boolean>();
      for (const records of (await db.recordsOfKeys(keys.slice(i, i + PAGE), marked)).values())
        for (const e of entriesOf(records))
          if (marked.get(e.id) !== (e.outcome === 'unknown')) (e.outcome === 'unknown' ? unknown : known).push(e.id);
      await db.setUnknown(unknown, known);
    }
  }

  /**
   * An interrupted command is exiting: the answers waiting for the group commit are committed now,
   * and nothing more is recorded (src/client/journal-db/group-commit.ts).
   */
  stop(): Promise<void> {
    return this.group.stop();
  }

  /** Says once, on stderr, that this journal is new (and, a local one, that it only knows what this machine sends). */
  private async sayNew(db: JournalTables): Promise<void> {
    if (!(await db.setMeta('new_journal_said', new Date().toISOString(), false))) return; // another process said it
    if (this.shared)
      return this.note(
        `Note: this is a new shared operations journal (${this.file}): every machine that records in it knows what the others sent.`,
      );
    this.note(
      `Note: this is a new operations journal (${this.file}), local to this machine: it knows only what is sent from here. A job whose disk is new at every run (a CI runner, a container) forgets what it sent: keep CARDCTL_STATE_DIR on a volume that lasts (docs/journal.md, "Where it lives").`,
    );
  }

  /** Refuses when an old journal taken over held lines that could not be read: any key may be among them. */
  private async checkUnreadable(db: JournalTables): Promise<void> {
    if (this.shared) return; // only a local journal takes over old files (a copy into a shared one refuses while there are any)
    const n = await db.unreadableCount();
    if (n === 0) return;
    const first = (await db.unreadable())[0];
    throw new CardctlError(
      `the operations journal ${this.file} holds ${n} line${n === 1 ? '' : 's'} of an older journal that could not be read (${first?.why ?? 'unreadable'}, in ${first?.source ?? 'the old files'}): whether a key was sent before cannot be known, so the money operation was not sent.`,
      {
        kind: 'unexpected',
        code: 'journal_damaged',
        hint: 'Look at them with `cardctl ops verify`; once you know what they were, `cardctl ops verify --discard-unreadable` lets money commands run again.',
      },
    );
  }

  /**
   * Holds a key from before its journal check to after its outcome is recorded, or refuses
   * (kind `key_in_use`, exit 9, nothing sent): on this machine a lock file beside a local journal
   * (src/client/key-lock.ts); across every machine an advisory lock in a shared one. Returns the
   * release.
   */
  async holdKey(scope: KeyScope): Promise<() => Promise<void>> {
    if (this.place.engine === 'sqlite') {
      const release = (await import('./key-lock.js')).lockKey(this.file, scope); // beside the file, before it is opened
      return async () => release();
    }
    const held = await this.serial(async (db) => {
      const shared = db as PostgresJournal;
      if (await shared.tryHold(scope.keyId, scope.idempotencyKey)) return { shared };
      return { holder: await shared.holderOf(scope.keyId, scope.idempotencyKey), holdS: shared.target.holdS };
    });
    if ('holder' in held)
      throw new CardctlError(
        `another cardctl process${held.holder ? `, ${held.holder},` : ''} is sending Idempotency-Key ${scope.idempotencyKey} right now (it holds the key in the shared journal ${this.file}): this one sent nothing.`,
        {
          kind: 'key_in_use',
          code: 'key_in_use',
          idempotencyKey: scope.idempotencyKey,
          hint: `Wait for it to finish, then run the same command again (the same key replays, nothing is charged twice) or look with \`cardctl ops list --key ${scope.idempotencyKey}\`. A holder that stopped answering loses the key within ${held.holdS} s.`,
        },
      );
    return async () => {
      const kept = await this.serial(() => held.shared.release(scope.keyId, scope.idempotencyKey)).catch(() => false);
      if (!kept)
        this.note(
          `Warning: the connection to the shared journal ${this.file} was lost while Idempotency-Key ${scope.idempotencyKey} was in flight: another machine may have sent it meanwhile (the API answers the same key once; see \`cardctl ops list --key ${scope.idempotencyKey}\`).`,
        );
    };
  }

  /** Every send of one idempotency key (any target), oldest first: what the money rules read before sending it again. */
  async history(idempotencyKey: string, opts: { strict?: boolean } = {}): Promise<JournalEntry[]> {
    return (await this.historyMany([idempotencyKey], opts)).get(idempotencyKey) ?? [];
  }

  /**
   * The histories of many keys in one query each page (a --batch rerun asks for thousands of rows
   * at a time). `strict` (the default: what the money rules read) refuses while lines of an old
   * journal could not be read.
   */
  historyMany(keys: Iterable<string>, opts: { strict?: boolean } = {}): Promise<Map<string, JournalEntry[]>> {
    const wanted = [...new Set(keys)];
    return this.serial(async (db) => {
      if (opts.strict !== false) await this.checkUnreadable(db);
      return this.historiesOf(db, wanted);
    });
  }

  private async historiesOf(db: JournalTables, keys: readonly string[]): Promise<Map<string, JournalEntry[]>> {
    const out = new Map<string, JournalEntry[]>();
    for (let i = 0; i < keys.length; i += PAGE)
      for (const [k, records] of await db.recordsOfKeys(keys.slice(i, i + PAGE))) out.set(k, entriesOf(records));
    return out;
  }

  /** Whether any idempotency key is `prefix` and a number of at most `maxDigits` digits (a batch's keys of the version before, `P-ROW`). */
  hasNumberedKey(prefix: string, maxDigits: number): Promise<boolean> {
    return this.serial((db) => db.hasNumberedKey(prefix, maxDigits));
  }

  /** By full id, an idempotency key, or an unambiguous id prefix (with or without `op_`). */
  find(idOrPrefix: string): Promise<JournalEntry | { ambiguous: string[] } | undefined> {
    return this.serial(async (db) => {
      const byId = async (id: string) => {
        const key = await db.keyOf(id);
        return key === undefined ? undefined : (await this.historiesOf(db, [key])).get(key)?.find((e) => e.id === id);
      };
      const wanted = idOrPrefix.startsWith('op_') ? idOrPrefix : `op_${idOrPrefix}`;
      const exact = /^op_[\w.-]{1,64}$/.test(wanted) ? await byId(wanted) : undefined;
      if (exact) return exact;
      const byKey = (await this.historiesOf(db, [idOrPrefix])).get(idOrPrefix)?.at(-1); // the newest send of that key
      if (byKey) return byKey;
      if (!/^op_[\w.-]{0,64}$/.test(wanted)) return undefined;
      const found = await db.idsWithPrefix(wanted, 11);
      if (found.length === 1) return byId(found[0]!);
      if (found.length > 1) return { ambiguous: found };
      return undefined;
    });
  }

  /** Operations newest first, lazily, a page at a time: each page's entries folded from their keys' whole histories. */
  async *newest(w: ListWindow = {}): AsyncGenerator<JournalEntry> {
    const since = w.sinceMs === undefined ? undefined : new Date(w.sinceMs).toISOString();
    const until = w.untilMs === undefined ? undefined : new Date(w.untilMs).toISOString();
    let after: OpRef | undefined;
    for (;;) {
      const { page, entries } = await this.serial(async (db) => {
        const page = await db.newest({ after, since, until, unknownOnly: w.unknownOnly, limit: PAGE });
        return { page, entries: await this.entriesFor(db, page) };
      });
      yield* entries;
      if (page.length < PAGE) return;
      after = page.at(-1);
    }
  }

  /** The entries of these operations, in their order (each folded with its key's other sends). */
  private async entriesFor(db: JournalTables, refs: readonly OpRef[]): Promise<JournalEntry[]> {
    const histories = await this.historiesOf(db, [...new Set(refs.map((r) => r.idempotency_key))]);
    const byId = new Map<string, JournalEntry>();
    for (const sends of histories.values()) for (const e of sends) byId.set(e.id, e);
    return refs.map((r) => byId.get(r.id)).filter((e): e is JournalEntry => e !== undefined);
  }

  /** Whether any operation was sent since `sinceMs` (one indexed lookup). */
  sentSince(sinceMs: number): Promise<boolean> {
    return this.serial(async (db) => (await db.sentSince(new Date(sinceMs).toISOString(), undefined, 1)).length > 0);
  }

  /**
   * Operations sent since `sinceMs`, oldest first, that `keep` keeps by their columns (method,
   * path, body's SHA-256, key id, idempotency key): only those are folded from their records, so
   * a busy day (864,000 sends at a key's rate limit) is looked at without parsing it.
   */
  async *sentSinceMatching(sinceMs: number, keep: (o: SentColumns) => boolean): AsyncGenerator<JournalEntry> {
    const since = new Date(sinceMs).toISOString();
    let after: SentColumns | undefined;
    for (;;) {
      const { page, entries } = await this.serial(async (db) => {
        const page = await db.sentSince(since, after, 4096);
        const kept = page.filter(keep);
        const entries: JournalEntry[] = [];
        for (let i = 0; i < kept.length; i += PAGE)
          entries.push(...(await this.entriesFor(db, kept.slice(i, i + PAGE))));
        return { page, entries };
      });
      yield* entries;
      if (page.length < 4096) return;
      after = page.at(-1);
    }
  }

  /** Whether any operation sent since `sinceMs` went under a key `under` says yes to (its key alone read: a day's sends looked at without a record parsed). */
  async anySentSinceUnder(sinceMs: number, under: (key: string) => boolean): Promise<boolean> {
    const since = new Date(sinceMs).toISOString();
    let after: { time: string; seq: number } | undefined;
    for (;;) {
      const page = await this.serial((db) => db.sentKeysSince(since, after, 4096));
      for (const [, , key] of page) if (under(key)) return true;
      if (page.length < 4096) return false;
      const [time, seq] = page.at(-1)!;
      after = { time, seq };
    }
  }

  /** The operations whose outcome is not known, oldest first. */
  async unresolved(): Promise<JournalEntry[]> {
    return (await collect(this.unresolvedNewest())).reverse();
  }

  /** The same, newest first and lazily. */
  unresolvedNewest(): AsyncGenerator<JournalEntry> {
    return this.newest({ unknownOnly: true });
  }

  /** Every operation, oldest first (for small journals and tests; lists stream newest()). */
  async entries(): Promise<JournalEntry[]> {
    return (await collect(this.newest())).reverse();
  }

  unresolvedCount(): Promise<number> {
    return this.serial((db) => db.count(true));
  }

  /** Lines of an old journal that could not be read when it was taken over (money commands refuse while there are any). */
  unreadable(): Promise<number> {
    return this.serial((db) => db.unreadableCount());
  }

  /** The lines themselves, for `ops verify`. */
  unreadableLines(): Promise<Array<{ source: string; why: string; text: string }>> {
    return this.serial((db) => db.unreadable());
  }

  /** `ops verify --discard-unreadable`: a person looked at them; money commands may run again. */
  discardUnreadable(): Promise<number> {
    return this.serial((db) => db.transaction(() => db.clearUnreadable()));
  }

  /** SQLite's own check of the database file (a shared journal: the server's side): ['ok'], or what is wrong. */
  check(): Promise<string[]> {
    return this.serial(async (db) => (db as SqliteJournal | PostgresJournal).quickCheck());
  }

  /** check(), throwing the error a money command would meet when the file is damaged. */
  async checkOrThrow(): Promise<void> {
    const found = await this.check();
    if (found.length !== 1 || found[0] !== 'ok') throw damagedJournal(this.file, `SQLite's check: ${found[0]}`);
  }

  /** Size, operations and unresolved ones: counts of indexes, nothing read whole. */
  stats(): Promise<JournalStats> {
    return this.serial(async (db) => ({
      file: this.file,
      bytes: await (db as SqliteJournal | PostgresJournal).bytes(),
      ops: await db.count(),
      unresolved: await db.count(true),
      unattributed: await db.unreadableCount(),
    }));
  }

  /**
   * Retention (docs/journal.md): the resolved operations first sent before `beforeMs` keep only
   * their identity and folded outcome (what the 24-hour rule and `ops show` need), `limit` at a
   * time, each page in a transaction of its own. Returns how many were compacted.
   */
  async compact(beforeMs: number, limit = Number.POSITIVE_INFINITY): Promise<number> {
    const before = new Date(beforeMs).toISOString();
    const now = new Date().toISOString();
    let done = 0;
    while (done < limit) {
      const n = await this.serial(async (db) => {
        const page = await db.resolvedBefore(before, Math.min(PAGE, limit - done));
        if (page.length > 0) await db.transaction(() => this.compactPage(db, page, now));
        return page.length;
      });
      if (n === 0) break;
      done += n;
    }
    await this.serial(async (db) => {
      await db.setMeta('last_compaction', now);
      // everything resolved before this is compacted: the next check looks after it (an unknown one there stays whole)
      const mark = await db.meta('compacted_before');
      if (mark === undefined || mark < before) await db.setMeta('compacted_before', before);
    });
    return done;
  }

  private async compactPage(db: JournalTables, page: readonly OpRef[], now: string): Promise<void> {
    const ids = new Set(page.map((r) => r.id));
    for (const records of (await db.recordsOfKeys([...new Set(page.map((r) => r.idempotency_key))])).values())
      for (const e of entriesOf(records))
        if (ids.has(e.id) && e.outcome === 'resolved' && !e.compacted_at)
          await db.compactOp(e.id, JSON.stringify(compactOf(e, now)));
  }

  /**
   * `ops copy`: every operation of this journal and what was learned after it, into `to` (a shared
   * journal, say), a page at a time, each page one transaction there. The same record twice is
   * kept once, so running it again copies nothing twice. Refused while lines of an old journal
   * could not be read (they would be missing there).
   */
  async copyInto(
    to: Journal,
    onPage: (copied: number) => void = () => {},
  ): Promise<{ operations: number; added: number }> {
    if (to.file === this.file)
      throw usageError(`the journal ${this.file} cannot be copied into itself.`, 'Give another journal with --to.');
    await this.serial((db) => this.checkUnreadable(db));
    let after = 0;
    let operations = 0;
    let added = 0;
    for (;;) {
      const { page, keys, records } = await this.serial(async (from) => {
        const page = await from.opsAfter(after, PAGE);
        const keys = [...new Set(page.map((r) => r.idempotency_key))];
        return { page, keys, records: await from.recordsOfKeys(keys) }; // checked as a money command reads them
      });
      if (page.length === 0) break;
      added += await to.serial((into) =>
        into.transaction(async () => {
          const n = await into.putPage([...records.values()].flat().map((r) => ({ r, text: JSON.stringify(r) })));
          await to.refold(into, keys);
          return n;
        }),
      );
      operations += page.length;
      after = page.at(-1)!.seq;
      onPage(operations);
    }
    await to.serial((into) => into.analyze()); // what the planner knows of the tables now: the next command's look-ups use their indexes
    return { operations, added };
  }

  /** When the oldest operation not yet past a compaction was first sent (undefined: none): what makes the next one due. One seek of the time index. */
  oldestTime(): Promise<string | undefined> {
    return this.serial(async (db) => db.oldestTime(db.known.get('compacted_before')));
  }

  /** When retention last ran here (undefined: never). */
  lastCompaction(): Promise<string | undefined> {
    return this.serial(async (db) => db.known.get('last_compaction'));
  }

  /** Commits what waits, and closes a local file (a shared journal's connection serves the whole process: the command's end closes it, src/client/exiting.ts). */
  async close(): Promise<void> {
    await this.group.flush();
    await this.queue;
    const store = this.store;
    this.store = undefined;
    if (store && !this.shared) await (await store.catch(() => undefined))?.close();
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
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
