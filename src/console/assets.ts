// The page's own files, shipped in the package (src/console/assets/, copied to dist/console/assets/
// by the build): read once, served with their type. Nothing else on disk is reachable: only the
// names in this table.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'login.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

const cache = new Map<string, Buffer>();

export const assetsDir = (): string => fileURLToPath(new URL('./assets/', import.meta.url));

/** The file and its type, or null for a name that is not one of the page's files. */
export function asset(name: string): { body: Buffer; type: string } | null {
  const type = Object.hasOwn(TYPES, name) ? TYPES[name]! : undefined;
  if (!type) return null;
  let body = cache.get(name);
  if (!body) {
    try {
      body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    } catch {
      return null;
    }
    cache.set(name, body);
  }
  return { body, type };
}

export const ASSET_NAMES = Object.keys(TYPES);
