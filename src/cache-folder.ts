// cardctl's folder in the user's cache (the same rule as bin/run.js's code caches):
// CARDCTL_CACHE_DIR, else $XDG_CACHE_HOME/cardctl, ~/Library/Caches/cardctl on macOS,
// %LOCALAPPDATA%\cardctl on Windows, ~/.cache/cardctl. Nothing in it is needed: a cache that
// cannot be read or written is skipped.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheFolder(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CARDCTL_CACHE_DIR) return env.CARDCTL_CACHE_DIR;
  const home = homedir();
  return join(
    env.XDG_CACHE_HOME ||
      (process.platform === 'win32'
        ? env.LOCALAPPDATA || join(home, 'AppData', 'Local')
        : process.platform === 'darwin'
          ? join(home, 'Library', 'Caches')
          : join(home, '.cache')),
    'cardctl',
  );
}
