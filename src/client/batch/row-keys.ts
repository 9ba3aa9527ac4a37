// A batch row's Idempotency-Key (PRODUCT.md, "Bulk"; docs/batch.md): `PREFIX-<digest>-<n>`, from
// what the row asks (its digest, src/client/batch/digests.ts) and its occurrence among the rows of
// the file asking the same (n: 1 for the first), never from the file's bytes or the row's place.
// So adding, removing or reordering rows, another column order, CRLF or NDJSON leave every other
// row's key as it was. PREFIX is `batch`, or `--idempotency-prefix`.
//
// Before these keys, a row's key was `batch-<hash of every row>-ROW` (`P-ROW` with a prefix): a
// file run by that version keeps those keys on a rerun (src/client/batch/journal-check.ts), which
// is why they are still derived here (legacyKey).
import { DigestLookup, type DigestShare } from './digests.js';

export const DEFAULT_KEY_PREFIX = 'batch';
/** The characters a key adds after its prefix: `-`, 16 hex digits, `-`, up to 7 digits (a row count). */
export const KEY_SUFFIX_MAX = 25;

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

/** `<16 hex digits>-<occurrence>`: the part of a row's key after its prefix. */
export const keySuffix = (hi: number, lo: number, occurrence: number): string => `${hex8(hi)}${hex8(lo)}-${occurrence}`;

export const rowKey = (prefix: string, suffix: string): string => `${prefix}-${suffix}`;

/** The key the version before gave row `row` of this file: `<legacy prefix>-<row>`. */
export const legacyKey = (legacyPrefix: string, row: number): string => `${legacyPrefix}-${row}`;

const HEX16 = /^[0-9a-f]{16}$/;
const COUNT = /^[1-9]\d{0,9}$/;

/** The row of one of the batch's keys (`prefix-<digest>-<n>`), found in the batch's digests; else 0. */
export function rowOfRowKey(prefix: string, digests: DigestLookup): (key: string) => number {
  const start = prefix.length + 1;
  return (key) => {
    if (
      key.length < start + 18 ||
      key.charCodeAt(start - 1) !== 45 ||
      key.charCodeAt(start + 16) !== 45 ||
      !key.startsWith(prefix)
    )
      return 0;
    const hex = key.slice(start, start + 16);
    const n = key.slice(start + 17);
    if (!HEX16.test(hex) || !COUNT.test(n)) return 0;
    return digests.rowOf(parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8), 16), Number(n));
  };
}

/** The row of a key the version before gave (`LEGACY-ROW`, ROW from 1 to total); else 0. */
export function rowOfKey(keyPrefix: string, total: number): (key: string) => number {
  const dash = keyPrefix.length + 1;
  return (key) => {
    if (
      key.length <= dash ||
      key[dash - 1] !== '-' ||
      !key.startsWith(keyPrefix) ||
      !/^[1-9]\d*$/.test(key.slice(dash))
    )
      return 0;
    const row = Number(key.slice(dash));
    return row <= total ? row : 0;
  };
}

/** The row of a key of the batch: positive for its own key, negative for its legacy key, 0 for another key. */
export function rowOfAnyKey(batch: {
  keyPrefix: string;
  legacyPrefix: string;
  total: number;
  digests: DigestShare;
}): (key: string) => number {
  const own = rowOfRowKey(batch.keyPrefix, new DigestLookup(batch.digests));
  const legacy = rowOfKey(batch.legacyPrefix, batch.total);
  return (key) => {
    const old = legacy(key);
    return old > 0 ? -old : own(key);
  };
}
