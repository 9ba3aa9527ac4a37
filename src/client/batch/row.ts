// One row of a batch, ready to send: the type both the plan (types.ts) and the spooled checked
// rows (checked-rows.ts) use, in a module of its own so neither imports the other (issue 30).
import type { OperationCall } from '../operations.js';

export interface BatchRow {
  row: number;
  line: number;
  /** `PREFIX-<digest>-<occurrence>`; a rerun of a file the version before sent keeps that version's key (legacyKey) instead */
  idempotencyKey: string;
  /** the key the version before gave this row (`batch-<file hash>-ROW`, `P-ROW`): used when the journal holds it for this very request */
  legacyKey: string;
  call: OperationCall & { json: Record<string, unknown> };
}
