// The one name of a `--state` file (issue 29): its real path, symlinks and `..` resolved, so the
// lock (FILE.lock, state-lock.ts) is the same however the file is named. A mock started on a
// symlink to the file of a running mock used to lock the link's own path, start beside the
// owner on a stale copy, then replace the link with a file of its own.
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { StateFileError } from './persistence.js';

/** The real path of a state file that may not exist yet (nor its folder): the nearest existing folder resolved. */
export function resolveStatePath(file: string): string {
  const absolute = resolve(file);
  let link: string | null = null;
  try {
    if (lstatSync(absolute).isSymbolicLink()) link = absolute;
    return realpathSync(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (link) {
      throw new StateFileError(
        `--state ${file} is a symbolic link to a file that does not exist (${code}): give --state the real file, or a new file's path.`,
      );
    }
    if (code !== 'ENOENT')
      throw new StateFileError(
        `cannot read the state file ${file} (${code ?? (err as Error).message}): give --state a file in a folder you can write.`,
      );
  }
  // not there yet: resolve the nearest folder that exists, keep the rest as given
  const rest: string[] = [basename(absolute)];
  let dir = dirname(absolute);
  for (;;) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return absolute;
      rest.unshift(basename(dir));
      dir = dirname(dir);
    }
  }
}
