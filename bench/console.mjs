#!/usr/bin/env node
// The mock's web console (issue 37), measured in one run:
// - first render: from the navigation to the newest 100 rows of the request log on screen, with
//   10,000 requests in the log, as a ratio to the same page over a log of 100 (the same 100 rows
//   drawn; same browser, same run);
// - throughput: signed GET /cards/{id} of the mock while a console page watches the live log
//   (server-sent events), as a ratio to the same mock with no page open; rounds alternate.
// Needs /usr/bin/chromium (Debian's `chromium`) and `npm run build`.
// Usage: node bench/console.mjs [--clients 16] [--requests 4000] [--rounds 3]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { fmt, median, startMockWithCard } from './lib.mjs';

delete process.env.NODE_EXTRA_CA_CERTS;
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CLIENTS = opt('clients', 16);
const REQUESTS = opt('requests', 4000);
const ROUNDS = opt('rounds', 3);
const { signRequest } = await import(new URL('../dist/signing/index.js', import.meta.url).href);

function send(agent, port, path, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers, agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Requests per second of CLIENTS keep-alive loops sharing `total` signed GETs. */
async function load(mock, path, total) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  let issued = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (issued < total) {
        issued++;
        const s = signRequest({
          method: 'GET',
          path,
          keyId: mock.keys.test.keyId,
          secret: mock.keys.test.secret,
          timestamp: Math.floor(Date.now() / 1000),
          nonce: randomUUID(),
        });
        const status = await send(agent, mock.port, path, s.headers);
        if (status !== 200) throw new Error(`answered ${status}`);
      }
    }),
  );
  agent.destroy();
  return total / ((performance.now() - t0) / 1000);
}

const profile = mkdtempSync(join(tmpdir(), 'cardctl-bench-console-'));
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
});

/** ms from the navigation to the newest 100 rows (or all, when fewer) on screen, the best of 5. */
async function firstRender(mock, rows) {
  const page = await context.newPage();
  await page.goto(mock.consoleLoginUrl());
  await page.locator('table.requests').waitFor();
  const times = [];
  for (let i = 0; i < 5; i++) {
    await page.goto('about:blank');
    await page.goto(`${new URL(mock.baseUrl).origin}/_console/#/requests`);
    await page.waitForFunction((n) => document.querySelectorAll('table.requests tbody tr').length === n, rows);
    times.push(await page.evaluate(() => performance.now()));
  }
  await page.close();
  return Math.min(...times);
}

const { mock, cardId } = await startMockWithCard();
const path = `${new URL(mock.baseUrl).pathname}/cards/${cardId}`;
const { mock: small, cardId: smallCard } = await startMockWithCard();
try {
  await load(small, `${new URL(small.baseUrl).pathname}/cards/${smallCard}`, 98);
  await load(mock, path, 10_000); // a full log (10,000 records), and the mock warmed up
  const full = await firstRender(mock, 100);
  const few = await firstRender(small, 100);

  const without = [];
  const watching = [];
  for (let round = 0; round < ROUNDS; round++) {
    without.push(await load(mock, path, REQUESTS));
    const page = await context.newPage();
    await page.goto(mock.consoleLoginUrl());
    await page.locator('#live.on').waitFor();
    watching.push(await load(mock, path, REQUESTS));
    await page.close();
  }
  const w = median(without);
  const c = median(watching);
  console.log('console first render (navigation to the newest rows on screen, best of 5)');
  console.log(`  10,000 logged requests  ${fmt(full, 0)} ms`);
  console.log(`  100 logged requests     ${fmt(few, 0)} ms`);
  console.log(`  ratio                   ${fmt(full / few)}x   (issue 37: <= 500 ms with 10,000)`);
  console.log(
    `mock throughput, signed GET /cards/{id}, ${CLIENTS} clients, ${REQUESTS} requests, median of ${ROUNDS} rounds`,
  );
  console.log(`  no console              ${fmt(w, 0)} req/s`);
  console.log(`  a console watching live ${fmt(c, 0)} req/s`);
  console.log(`  ratio                   ${fmt(c / w)}x   (issue 37: >= 0.9x)`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await mock.close();
  await small.close();
}
