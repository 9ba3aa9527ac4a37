// The state folder (the journal and its lock files) cannot be created or written: an environment
// problem the user fixes (permissions, XDG_STATE_HOME pointing at a file or a read-only folder, a
// full disk), not a bug. Said as one error of kind `usage` (exit 2, as an unreadable profile
// store is; src/cli/exit-codes.ts maps it) that names the folder, why, where its path comes from
// and what to do. Money is never sent when this happens: the journal record comes first.
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readlinkSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { absoluteHome, noHomeError, pathShown, relativeFolderError, xdgFolder } from '../env-paths.js';
import { CardctlError } from '../errors.js';
import { refuseNetworkFolder } from './journal-db/network-folder.js';

/**
 * `$CARDCTL_STATE_DIR`, else `$XDG_STATE_HOME/cardctl`, else the platform's state folder: always an
 * absolute path. A relative CARDCTL_STATE_DIR is refused, a relative XDG_STATE_HOME ignored (the
 * XDG Base Directory specification), and no absolute home with no other place is refused (exit 2):
 * a journal that followed the working directory would let the same file, run from another folder,
 * be charged again.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.CARDCTL_STATE_DIR;
  if (own) {
    if (!isAbsolute(own)) throw relativeFolderError('CARDCTL_STATE_DIR', 'the operations journal');
    return own;
  }
  const xdg = xdgFolder(env, 'XDG_STATE_HOME');
  if (xdg) return join(xdg, 'cardctl');
  if (process.platform === 'win32') {
    const local = env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : undefined;
    const base = local ?? homeOr(env, 'AppData', 'Local');
    return join(base, 'cardctl', 'state');
  }
  if (process.platform === 'darwin') return join(homeOr(env), 'Library', 'Application Support', 'cardctl');
  return join(homeOr(env), '.local', 'state', 'cardctl');
}

/** The absolute home (joined with `parts`), or the refusal when there is none. */
function homeOr(env: NodeJS.ProcessEnv, ...parts: string[]): string {
  const home = absoluteHome(env);
  if (!home) throw noHomeError('the operations journal', ['CARDCTL_STATE_DIR', 'XDG_STATE_HOME']);
  return join(home, ...parts);
}

/** File-system answers that the user's environment explains (not cardctl's bug, not a damaged journal). */
const ENVIRONMENT_CODES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted (another owner?)',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of that path is a file, not a folder',
  EEXIST: 'a file is in the way of a folder',
  EISDIR: 'a folder is where a file should be',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'a file reached the largest size allowed (a file size limit such as ulimit -f)',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links in the path',
};

/** The symbolic link to nowhere on `path` (the path itself or a folder above it), with its target. */
function danglingLink(path: string | undefined): { link: string; target: string } | undefined {
  for (let p = path; p && p !== dirname(p); p = dirname(p)) {
    try {
      if (!lstatSync(p).isSymbolicLink() || existsSync(p)) continue;
      return { link: p, target: readlinkSync(p) };
    } catch {
      /* not there at all: look further up */
    }
  }
  return undefined;
}

/** Whether an error is a file-system refusal that the user's environment explains (a symbolic link to nowhere too). */
export function isStateFolderProblem(err: unknown): err is NodeJS.ErrnoException {
  const e = err as NodeJS.ErrnoException | null;
  if (typeof e?.code !== 'string') return false;
  return Object.hasOwn(ENVIRONMENT_CODES, e.code) || (e.code === 'ENOENT' && danglingLink(e.path) !== undefined);
}

/** A path under CARDCTL_STATE_DIR or XDG_STATE_HOME, named from the variable (`$XDG_STATE_HOME/cardctl`). */
const shown = (path: string, env: NodeJS.ProcessEnv): string =>
  pathShown(path, env, ['CARDCTL_STATE_DIR', 'XDG_STATE_HOME']);

/** Where the state folder's path comes from, for the hint. */
function origin(env: NodeJS.ProcessEnv): string {
  if (env.CARDCTL_STATE_DIR) return 'it is CARDCTL_STATE_DIR';
  if (xdgFolder(env, 'XDG_STATE_HOME')) return 'it is $XDG_STATE_HOME/cardctl';
  return 'it is the default state folder';
}

/**
 * The error for a state folder that cannot be written. `folder`: cardctl's state folder (the journal's parent);
 * `consequence`: what did not happen (`the money operation was not sent`).
 */
export function stateFolderError(
  err: NodeJS.ErrnoException,
  folder: string,
  consequence: string,
  env: NodeJS.ProcessEnv = process.env,
): CardctlError {
  const variable = env.CARDCTL_STATE_DIR ? 'CARDCTL_STATE_DIR' : 'XDG_STATE_HOME (or CARDCTL_STATE_DIR)';
  const dangling = err.code === 'ENOENT' ? danglingLink(err.path) : undefined;
  if (dangling) {
    return new CardctlError(
      `cannot write the operations journal in ${shown(folder, env)}: ${shown(dangling.link, env)} is a symbolic link to ${dangling.target}, which does not exist; ${consequence}.`,
      {
        kind: 'usage',
        code: 'state_folder_unwritable',
        hint: `Create the folder the link points to, remove the link (cardctl then creates a folder there), or set ${variable} to a folder you can write; then run the command again.`,
        cause: err,
      },
    );
  }
  const code = err.code ?? 'error';
  const at =
    err.path && err.syscall
      ? ` (${err.syscall} ${shown(err.path, env)}: ${code}, ${ENVIRONMENT_CODES[code] ?? err.message})`
      : ` (${code}: ${ENVIRONMENT_CODES[code] ?? err.message})`;
  return new CardctlError(`cannot write the operations journal in ${shown(folder, env)}${at}; ${consequence}.`, {
    kind: 'usage',
    code: 'state_folder_unwritable',
    hint: `The journal needs a folder you can write (${origin(env)}). Fix its permissions (or free disk space), or set ${variable} to a folder you can write; then run the command again.`,
    cause: err,
  });
}

/**
 * `doctor`: proves the folder can be written, as a money operation needs it (a lock file beside the
 * journal, created and removed): a read-only folder reads fine and still refuses every money operation.
 */
export function probeStateFolder(folder: string /* the state folder */, env: NodeJS.ProcessEnv = process.env): void {
  const locks = join(folder, 'locks');
  const probe = join(locks, `doctor-${process.pid}-${Date.now()}.probe`);
  try {
    mkdirSync(locks, { recursive: true, mode: 0o700 });
    closeSync(openSync(probe, 'wx', 0o600));
    unlinkSync(probe);
  } catch (err) {
    throw isStateFolderProblem(err)
      ? stateFolderError(err, folder, 'money operations are refused until it can be written', env)
      : err;
  }
  refuseNetworkFolder(folder);
}
