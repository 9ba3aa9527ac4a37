// A `--batch` rerun's pass over the journal, once per batch: every key bucket that can hold one
// of the batch's keys (`PREFIX-1` to `PREFIX-N`) is read once, each key's sends are judged by the
// money rules (src/client/money-rules.ts) as they stand, and the verdict goes into a fixed-size
// slot per row (src/client/batch/rerun-slots.ts) of a private, already unlinked file. The rows
// then read their slots a chunk at a time: memory does not grow with the batch or the journal.
// A slot is only a shortcut: a row with nothing journaled, or whose key's history the slot
// cannot hold, or whose body is not the one the verdict was made for, goes the ordinary way.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyBucketName } from '../journal-store/layout.js';
import type { Journal, JournalEntry } from '../journal.js';
import { normalBase, sendVerdict, type SendTarget } from '../money-rules.js';
import { SLOT_BYTES, decodeSlot, encodeSlot, type Slot, type SlotValue } from './rerun-slots.js';

/** What the rows are sent to and with (the batch's credentials): part of an operation's identity. */
export type RerunTarget = Pick<SendTarget, 'baseUrl' | 'mode' | 'keyId'>;

/** Number of key buckets (keyBucketName: 3 hex digits). */
const BUCKETS = 4096;

/** The verdict for a key's sends, for the body they were all sent with. */
export function slotValue(sends: readonly JournalEntry[], key: string, target: RerunTarget, nowMs: number): SlotValue {
  const base = normalBase(target.baseUrl);
  const hashes = new Set<string>();
  for (const e of sends) if (e.mode === target.mode && normalBase(e.base_url) === base) hashes.add(e.body_sha256);
  if (hashes.size === 0) return 'none';
  if (hashes.size > 1) return 'ask';
  const [bodySha256] = hashes as unknown as [string];
  // a literal, not `{ ...target, ... }`: V8 (Node 20) builds a spread followed by more fields some 50 times slower
  const verdict = sendVerdict(sends, { baseUrl: target.baseUrl, mode: target.mode, keyId: target.keyId, idempotencyKey: key, bodySha256, batch: true }, nowMs);
  return verdict.send ? 'none' : { report: verdict.report, bodySha256 };
}

export class RerunIndex {
  private constructor(
    private readonly fd: number | undefined,
    private readonly keyPrefix: string,
  ) {}

  /** An index that knows nothing (every row goes the ordinary way). */
  static empty(keyPrefix: string): RerunIndex {
    return new RerunIndex(undefined, keyPrefix);
  }

  /** The pass: reads each key bucket the batch's keys can be in, once. */
  static build(journal: Journal, opts: { keyPrefix: string; total: number; target: RerunTarget; nowMs: number }): RerunIndex {
    const { keyPrefix, total } = opts;
    const existing = journal.keyBuckets();
    if (existing.length === 0 || total === 0) return RerunIndex.empty(keyPrefix);
    const fd = openPrivate();
    const index = new RerunIndex(fd, keyPrefix);
    try {
      const slot = Buffer.alloc(SLOT_BYTES);
      const dash = keyPrefix.length + 1;
      const rowOf = (key: string): number => (key.length > dash && key.startsWith(keyPrefix) && key[dash - 1] === '-' && /^[1-9]\d*$/.test(key.slice(dash)) ? Number(key.slice(dash)) : 0);
      const wanted = (key: string): boolean => {
        const row = rowOf(key);
        return row >= 1 && row <= total;
      };
      journal.scanForBatch(bucketsOf(keyPrefix, total, existing), wanted, (key, sends) => {
        const value = slotValue(sends, key, opts.target, opts.nowMs);
        if (value === 'none') return;
        encodeSlot(slot, 0, value);
        writeSync(fd, slot, 0, SLOT_BYTES, (rowOf(key) - 1) * SLOT_BYTES);
      });
    } catch (err) {
      index.close();
      throw err;
    }
    return index;
  }

  /** The slots of rows `first` to `last` (one read): a function from a row number in that range to its slot. */
  read(first: number, last: number, nowMs: number): (row: number) => Slot {
    const none: Slot = { kind: 'none' };
    if (this.fd === undefined || last < first) return () => none;
    const buf = Buffer.alloc((last - first + 1) * SLOT_BYTES); // zeroed: rows past the file's end read as none
    for (let got = 0; got < buf.length; ) {
      const n = readSync(this.fd, buf, got, buf.length - got, (first - 1) * SLOT_BYTES + got);
      if (n === 0) break;
      got += n;
    }
    return (row) => (row < first || row > last ? { kind: 'ask' } : decodeSlot(buf, (row - first) * SLOT_BYTES, `${this.keyPrefix}-${row}`, nowMs));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}

/** The buckets to read: those on disk that one of the batch's keys hashes to (every one on disk, for a batch of more rows than that takes to find). */
function bucketsOf(keyPrefix: string, total: number, existing: readonly string[]): string[] {
  if (total > 8 * BUCKETS) return [...existing];
  const needed = new Set<string>();
  for (let row = 1; row <= total && needed.size < BUCKETS; row++) needed.add(keyBucketName(`${keyPrefix}-${row}`));
  return existing.filter((b) => needed.has(b));
}

/** A file only this process can reach: created in a private folder, its name removed at once. */
function openPrivate(): number {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-rerun-'));
  try {
    return openSync(join(dir, 'slots'), 'w+', 0o600);
  } finally {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Windows cannot remove an open file: the temporary folder is the system's to clean
    }
  }
}
