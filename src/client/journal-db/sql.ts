// What the journal's statements run on (src/client/journal-db/tables.ts): one connection to one
// engine, SQLite (sqlite.ts) or PostgreSQL (postgres.ts). Asynchronous, because a PostgreSQL
// client is (SQLite's answers are ready at once). The caller runs one journal call at a time on
// a runner (src/client/journal.ts queues them), so a transaction's statements are never mixed
// with another call's. The statements are written once, in the SQL both engines read, with `?`
// placeholders; `forPostgres` spells the few words PostgreSQL says otherwise.

export type Engine = 'sqlite' | 'postgres';

export type SqlValue = string | number | null;

export interface SqlRunner {
  readonly engine: Engine;
  all<T>(sql: string, args?: readonly SqlValue[]): Promise<T[]>;
  /** the rows as arrays of their columns, in the statement's order (no object a row: a rerun reads a million) */
  values<T extends unknown[]>(sql: string, args?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, args?: readonly SqlValue[]): Promise<T | undefined>;
  /** returns how many rows it changed */
  run(sql: string, args?: readonly SqlValue[]): Promise<number>;
  /** statements without arguments, several at once (the schema) */
  exec(sql: string): Promise<void>;
  /** `fn` in one transaction that holds the write lock from its start (SQLite: BEGIN IMMEDIATE) */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The journal's SQL as PostgreSQL reads it: `$n` placeholders, no SQLite index hints, and
 * `json_each(?)` (a JSON array's elements, in a column named `value`) as `json_array_elements_text`.
 * The statements hold no `?` inside a string literal.
 */
export function forPostgres(sql: string): string {
  let n = 0;
  return (
    sql
      .replace(/\s+INDEXED BY \w+/g, '')
      // `x IN (SELECT ... FROM json_each(?))` as `x = ANY(ARRAY(...))`: an index scan for the array's
      // elements whatever the planner believes of the table (a journal just copied in has no
      // statistics yet: the IN form then scanned the whole table, 200 ms a page of 256 keys at 100,000)
      .replace(/\bIN \(SELECT (.+?) FROM json_each\(\?\)\)/g, '= ANY(ARRAY(SELECT $1 FROM json_each(?)))')
      .replace(/\bjson_each\(\?\)/g, 'json_array_elements_text(CAST(? AS TEXT)::json)') // text: sent as it is, not encoded again as a JSON string
      .replace(/\?/g, () => `$${++n}`)
  );
}
