// Bulk money operations (PRODUCT.md, "Bulk"): `cards issue --batch FILE` and `cards recharge
// --batch FILE`, in four parts: the reader (a CSV or NDJSON file's records), the planner (every
// row checked before anything is sent, each row's Idempotency-Key), the limiter (the key's rate
// limit, client-side) and the runner (a small worker pool; results in row order).
export * from './batch/types.js';
export { COLUMNS, expected } from './batch/columns.js';
export { csvRows, detectFormat, parseRecords, readBatchSource } from './batch/reader.js';
export { checkRecord, loadBatch, rowKey, rowsKeyPrefix } from './batch/planner.js';
export { BatchLimiter } from './batch/limiter.js';
export { runBatch, type RunBatchOptions } from './batch/runner.js';
