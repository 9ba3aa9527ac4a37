// The CLI's version for the User-Agent, read once from package.json (dist/client -> ../../).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function cliVersion(): string {
  if (cached === undefined) {
    try {
      cached = String(
        (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string })
          .version ?? '0.0.0',
      );
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}

export const userAgent = (): string => `cardctl/${cliVersion()}`;
