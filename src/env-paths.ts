// A path for a message: under a folder an environment variable names, it is written from the
// variable's name (`$CARDCTL_CONFIG_DIR/profiles.json`), never with the variable's value: values from
// the environment are named, never quoted back (docs/profiles.md). In a hint it still works as a
// shell word inside double quotes.
import { sep } from 'node:path';

export function pathShown(path: string, env: NodeJS.ProcessEnv, variables: readonly string[]): string {
  for (const name of variables) {
    const v = env[name]?.replace(/[\\/]+$/, '');
    if (v && (path === v || path.startsWith(v + sep))) return `$${name}${path.slice(v.length)}`;
  }
  return path;
}
