// A path for a message: under a folder an environment variable names, it is written from the
// variable's name (`$CARDCTL_CONFIG_DIR/profiles.json`), never with the variable's value: values from
// the environment are named, never quoted back (docs/profiles.md). In a hint it still works as a
// shell word inside double quotes.
import { homedir } from 'node:os';
import { isAbsolute, sep } from 'node:path';
import { CardctlError } from './errors.js';

export function pathShown(path: string, env: NodeJS.ProcessEnv, variables: readonly string[]): string {
  for (const name of variables) {
    const v = env[name]?.replace(/[\\/]+$/, '');
    if (v && (path === v || path.startsWith(v + sep))) return `$${name}${path.slice(v.length)}`;
  }
  return path;
}

// Absolute places only (issue 36): a relative folder would follow the working directory, so the
// same command run from another folder would find another journal (and charge again) or another
// profile store.

/**
 * An XDG Base Directory variable's folder when it is set to an absolute path; undefined when it is
 * unset, empty or relative: the specification says a relative path is invalid and to be ignored.
 */
export function xdgFolder(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v && isAbsolute(v) ? v : undefined;
}

/** The home folder when it is an absolute path (HOME from `env`, else the account's), undefined when empty or relative. */
export function absoluteHome(env: NodeJS.ProcessEnv): string | undefined {
  let home: string | undefined = env.HOME;
  if (home === undefined || process.platform === 'win32') {
    try {
      home = homedir();
    } catch {
      home = undefined; // no HOME and no account entry
    }
  }
  return home && isAbsolute(home) ? home : undefined;
}

/**
 * The refusal of a folder variable set to a relative path (exit 2, src/cli/exit-codes.ts maps `usage`).
 * The value is named, never quoted back (it comes from the environment).
 */
export function relativeFolderError(variable: string, what: string): CardctlError {
  return new CardctlError(
    `${variable} is a relative path: ${what} would follow the working directory (the same command run from another folder would not find it), so nothing was done.`,
    {
      kind: 'usage',
      code: 'relative_folder',
      hint: `Set ${variable} to an absolute path (e.g. ${variable}="$PWD/..."), or unset it to use the default place.`,
    },
  );
}

/** The refusal when no absolute place is known: HOME empty or relative, and no variable names one. */
export function noHomeError(what: string, variables: readonly string[]): CardctlError {
  return new CardctlError(
    `there is no absolute place for ${what}: HOME is empty or relative, and ${variables.join(' and ')} ${variables.length === 1 ? 'is' : 'are'} not set to an absolute path, so nothing was done.`,
    {
      kind: 'usage',
      code: 'no_home',
      hint: `Set HOME to your home folder, or ${variables[0]} to an absolute path.`,
    },
  );
}
