// A line of the file journals older versions wrote, read once when they are taken over
// (src/client/journal-db/takeover.ts): in the folder journal, `<crc32 of the JSON, 8 hex> <JSON>`;
// in the single operations.ndjson before it, the JSON alone. A damaged line (checksum, JSON, or
// shape) is reported as such, never read as another record nor skipped silently.
import { createRequire } from 'node:module';
import { parseRecord, type DamagedLine, type RawRecord } from './records.js';

export type { DamagedLine } from './records.js';
export { parseRecord } from './records.js';

/** node:zlib's crc32, loaded on first use: a command that reads or writes no journal line (every GET) does not load zlib at start-up */
let zlibCrc32: typeof import('node:zlib').crc32 | undefined;
const crc32 = (data: string | Uint8Array): number =>
  (zlibCrc32 ??= (createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib')).crc32)(data);

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

export function decodeLine(line: string): RawRecord | DamagedLine {
  const sp = line.indexOf(' ');
  const json = line.slice(sp + 1);
  if (sp !== 8 || !/^[0-9a-f]{8}$/.test(line.slice(0, 8)) || hex8(crc32(json)) !== line.slice(0, 8)) {
    return { damaged: true, why: 'checksum mismatch', text: line };
  }
  return parseRecord(json);
}

export const isDamaged = (r: RawRecord | DamagedLine): r is DamagedLine => (r as DamagedLine).damaged === true;
