#!/usr/bin/env node
// Signed GET /cards/{id} throughput of the embedded mock, as a RATIO to a bare node:http server
// answering a small JSON, both measured in this run with the same load generator (N keep-alive
// clients on loopback, each request signed with a fresh nonce). Also prints each p99 latency, and
// the cost of the request log (issue 18): the same mock with its log on (the default, 10,000
// records) against one started with `requestLog: 0`, as a ratio measured in the same run.
// Usage: node bench/mock-throughput.mjs [--clients 16] [--requests 6000]   (after `npm run build`)
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startMockWithCard } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CLIENTS = opt('clients', 16);
const REQUESTS = opt('requests', 6000);
const WARMUP = Math.min(500, Math.floor(REQUESTS / 10));

const { signRequest } = await import(new URL('../dist/signing/index.js', import.meta.url).href);

/** One request over a keep-alive agent; resolves with the status once the body is read. */
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

/** CLIENTS loops share a budget of `total` requests; every request is signed afresh. */
async function load(port, path, key, total) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies = [];
  const statuses = new Map();
  let issued = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (issued < total) {
        issued++;
        const start = performance.now();
        const signed = signRequest({
          method: 'GET',
          path,
          keyId: key.keyId,
          secret: key.secret,
          timestamp: Math.floor(Date.now() / 1000),
          nonce: randomUUID(),
        });
        const status = await send(agent, port, path, signed.headers);
        latencies.push(performance.now() - start);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: total / seconds, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, statuses };
}

// The mock, with a card to read (its request log on, the default), and the same without a log.
const { mock, cardId } = await startMockWithCard();
const cardPath = `${new URL(mock.baseUrl).pathname}/cards/${cardId}`;
const { mock: mockOff, cardId: cardIdOff } = await startMockWithCard({ requestLog: 0 });
const cardPathOff = `${new URL(mockOff.baseUrl).pathname}/cards/${cardIdOff}`;

// The bare server: same transport, a small JSON, no work.
const small = JSON.stringify({ success: true, data: { id: cardId, status: 'active', balance_minor: 1000 } });
const bare = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(small) });
    res.end(small);
  });
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
const barePort = bare.address().port;

// Warm all three, then measure bare, mock, mock without log in three rounds and keep the best run
// of each (less noise on a shared machine).
await load(barePort, cardPath, mock.keys.test, WARMUP);
await load(mock.port, cardPath, mock.keys.test, WARMUP);
await load(mockOff.port, cardPathOff, mockOff.keys.test, WARMUP);
const runs = { bare: [], mock: [], off: [] };
for (let i = 0; i < 3; i++) {
  runs.bare.push(await load(barePort, cardPath, mock.keys.test, REQUESTS));
  // log on and off in turn, each first in every other round: neither gains from going first
  if (i % 2 === 0) runs.mock.push(await load(mock.port, cardPath, mock.keys.test, REQUESTS));
  runs.off.push(await load(mockOff.port, cardPathOff, mockOff.keys.test, REQUESTS));
  if (i % 2 === 1) runs.mock.push(await load(mock.port, cardPath, mock.keys.test, REQUESTS));
}
const best = (xs) => xs.reduce((a, b) => (b.rps > a.rps ? b : a));
const b = best(runs.bare);
const m = best(runs.mock);
const o = best(runs.off);
const okMock = m.statuses.get(200) ?? 0;
await mock.close();
await mockOff.close();
await new Promise((r) => bare.close(r));

console.log(`clients=${CLIENTS} requests=${REQUESTS} (signed GET /cards/{id}, fresh nonce each)`);
console.log(`bare node:http: ${b.rps.toFixed(0)} req/s, p99 ${b.p99.toFixed(2)} ms`);
console.log(`mock:           ${m.rps.toFixed(0)} req/s, p99 ${m.p99.toFixed(2)} ms, 200s ${okMock}/${REQUESTS}`);
if (okMock !== REQUESTS) {
  console.log(`mock statuses: ${JSON.stringify(Object.fromEntries(m.statuses))}`);
  process.exitCode = 1;
}
console.log(`mock, log off:  ${o.rps.toFixed(0)} req/s, p99 ${o.p99.toFixed(2)} ms (requestLog: 0)`);
console.log(`ratio=${(m.rps / b.rps).toFixed(2)} (target >= 0.35)`);
console.log(
  `request log: log on / log off = ${(m.rps / o.rps).toFixed(2)} (target >= 0.90: the log costs at most 10 %)`,
);
