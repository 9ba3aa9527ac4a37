// What the batch tests share: the `--json` result lines of a run, and batch files written into a
// sandbox's folder under names that never collide.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliResult } from './cli.js';

/** The `--json` lines of a batch run, parsed. */
export const jsonLines = (r: CliResult): any[] =>
  r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** A writer of batch files in `dir()` (read at each call: the sandbox is made in beforeAll), each named with a running number. */
export function batchFiles(dir: () => string): (name: string, text: string) => string {
  let fileNo = 0;
  return (name, text) => {
    const path = join(dir(), `${++fileNo}-${name}`);
    writeFileSync(path, text);
    return path;
  };
}
