// Whether a state folder holds a file journal an older cardctl wrote (what takeover.ts takes over):
// a module of its own, so that opening the journal looks for them without loading the takeover.
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** The old journals beside a state folder's database, oldest format first. */
export function oldJournals(stateFolder: string): string[] {
  const is = (p: string, folder: boolean): boolean => {
    try {
      return statSync(p).isDirectory() === folder;
    } catch {
      return false;
    }
  };
  return [
    ...(is(join(stateFolder, 'operations.ndjson'), false) ? [join(stateFolder, 'operations.ndjson')] : []),
    ...(is(join(stateFolder, 'journal'), true) ? [join(stateFolder, 'journal')] : []),
  ];
}
