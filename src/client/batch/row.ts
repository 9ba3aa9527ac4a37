// One row of a batch, ready to send: the type both the plan (types.ts) and the spooled checked
// rows (checked-rows.ts) use, in a module of its own so neither imports the other (issue 30).
import type { OperationCall } from '../operations.js';

export interface BatchRow {
  row: number;
  line: number;
  idempotencyKey: string;
  call: OperationCall & { json: Record<string, unknown> };
}
