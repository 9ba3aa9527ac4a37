// The console's tests drive Debian's chromium (/usr/bin/chromium) with playwright-core: headless,
// a fresh user-data folder per launch, removed with the browser in teardown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless chromium with its own profile folder. */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'cardctl-console-browser-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
