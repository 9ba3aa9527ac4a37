// The journal's tables (docs/journal.md, "Tables"). Plain SQL that SQLite and PostgreSQL both read:
// an operation is one row, written (and synced) before its request leaves; everything learned
// after it (the API's answers, a person's `ops resolve`) is a row of `answers`, never an update of
// the operation's own record. What an operation's records mean is folded in one place
// (src/client/journal-db/records.ts); the columns beside the record are what the commands look
// things up by.
//
// SQLite does not checksum its pages, and a damaged byte in the pages holding a key can make a
// known key unknown (measured: 13 of 2,893 single-bit flips in those pages found no send of a key
// sent before, 20 more read another outcome), which would send it again. So every record carries
// its CRC-32 (`crc`), and every key is found through two indexes (its text, and a 53-bit digest
// of it, `key_digest`): a damaged byte hits one page, so one of the two still finds every send,
// and the two disagreeing refuses the money command; an operation counts its answers (`answers`),
// so one lost from its index is missed too (src/client/journal-db/sqlite.ts).

/** The indexes a takeover of a large old journal drops while it loads, and makes again after (sorting once is faster than inserting into them row by row). */
export const BULK_INDEXES = [
  'operations_by_key',
  'operations_by_digest',
  'operations_by_time',
  'operations_unknown',
  'answers_by_op',
];

/** Bumped when a table changes; a journal of a newer version is refused, never read wrong. */
export const SCHEMA_VERSION = 1;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS operations (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  idempotency_key TEXT NOT NULL,
  key_digest INTEGER NOT NULL,
  time TEXT NOT NULL,
  key_id TEXT,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  body_sha256 TEXT NOT NULL,
  unknown INTEGER NOT NULL DEFAULT 1,
  compacted INTEGER NOT NULL DEFAULT 0,
  answers INTEGER NOT NULL DEFAULT 0,
  record TEXT NOT NULL,
  crc INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS operations_by_key ON operations (idempotency_key);
CREATE INDEX IF NOT EXISTS operations_by_digest ON operations (key_digest);
CREATE INDEX IF NOT EXISTS operations_by_time ON operations (time, seq);
CREATE INDEX IF NOT EXISTS operations_unknown ON operations (time, seq) WHERE unknown = 1;
CREATE TABLE IF NOT EXISTS answers (
  seq INTEGER PRIMARY KEY,
  op_id TEXT NOT NULL,
  record TEXT NOT NULL,
  crc INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS answers_by_op ON answers (op_id);
CREATE TABLE IF NOT EXISTS unreadable (
  seq INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  why TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;
