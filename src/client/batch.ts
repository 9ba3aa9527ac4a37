// Bulk money operations (PRODUCT.md, "Bulk"): `cards issue --batch FILE` and `cards recharge
// --batch FILE`, in parts: the reader (a CSV or NDJSON file's records, streamed from a private
// copy), the planner (every row checked before anything is sent, identical rows, each row's
// Idempotency-Key), the limiter (the key's rate limit, client-side), the runner (a small worker
// pool; results in row order, in bounded memory) and the journal check (a rerun's resolved rows
// answered in bulk), and the heap setting a long batch runs with (../heap.ts).
export * from './batch/types.js';
export { COLUMNS, expected } from './batch/columns.js';
export { detectFormat, readRecords } from './batch/reader.js';
export { openSpool, spoolBytes, unendedNote, type Spool } from './batch/spool.js';
export { checkRecord, loadBatch, planBatch, planRows, rowsKeyPrefix } from './batch/planner.js';
export { DEFAULT_KEY_PREFIX, legacyKey, rowKey } from './batch/row-keys.js';
export { anyRowToSend, findRepeats, type Repeat, type Repeats } from './batch/repeats.js';
export { BatchLimiter } from './batch/limiter.js';
export { runBatch, type BatchSource, type RunBatchOptions } from './batch/runner.js';
export { journalAnswers } from './batch/journal-check.js';
export { boundedYoungGeneration, keepHeapSmall, keepOldGenerationTight } from './heap.js';
