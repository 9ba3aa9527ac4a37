// The screenshots of docs/mock-console.md: a mock with a few requests (one good, two with a
// signing mistake), its console in headless chromium (/usr/bin/chromium), the request log and a
// refusal's diagnosis saved as PNG files in docs/. Run after `npm run build`:
// `node scripts/console-screenshots.mjs`.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startMock } from '../dist/mock/index.js';

const docs = new URL('../docs/', import.meta.url);
const mock = await startMock({ port: 0, seed: 37, providerLatencyMs: 0 });
const key = mock.keys.test;

async function send(method, path, query, body, signedBody = body, signedQuery = query) {
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomUUID();
  const hash = createHash('sha256').update(signedBody).digest('hex');
  const sig = createHmac('sha256', key.secret)
    .update([method, path, signedQuery, key.keyId, ts, nonce, hash].join('\n'))
    .digest('base64');
  const url = `${mock.baseUrl.replace('/api/v1', '')}${path}${query ? `?${query}` : ''}`;
  const headers = { 'X-Api-Key': key.keyId, 'X-Timestamp': ts, 'X-Nonce': nonce, 'X-Signature': sig };
  if (body) headers['Content-Type'] = 'application/json';
  await (await fetch(url, { method, headers, body: body || undefined })).arrayBuffer();
}

const compact = '{"first_name":"Ada","last_name":"Obi"}';
await send('GET', '/api/v1/customers', 'per_page=2', '');
await send('POST', '/api/v1/customers', '', compact, JSON.stringify(JSON.parse(compact), null, 2));
await send('GET', '/api/v1/customers', 'per_page=2&cursor=a', '', '', 'per_page=2&cursor=a');
await send('GET', '/api/v1/customers', 'per_page=2', '');

const profile = mkdtempSync(join(tmpdir(), 'cardctl-shots-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
  viewport: { width: 1280, height: 760 },
});
try {
  const page = await context.newPage();
  await page.goto(mock.consoleLoginUrl());
  await page.locator('table.requests tbody tr').nth(3).waitFor();
  await page.screenshot({ path: new URL('mock-console-requests.png', docs).pathname });
  await page.locator('table.requests tbody tr', { hasText: 'query_not_sorted' }).getByRole('link').click();
  await page.locator('table.canonical').waitFor();
  await page.getByRole('region', { name: 'Diagnosis' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: new URL('mock-console-diagnosis.png', docs).pathname, fullPage: true });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await mock.close();
}
