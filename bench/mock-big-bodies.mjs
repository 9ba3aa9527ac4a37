// Big bodies with a bad signature (issue 29): 20 requests of a 5 MB JSON body signed wrong (only
// the public key id is needed to send them), 4 at a time, against the mock in its own process
// (bench/serve-mock.mjs), while a small signed GET goes every 100 ms. Before the fix each cost
// about 1.5 s of the mock's event loop (the diagnosis re-serialized the body some 80 times).
// Prints the time of the 20, the small GETs' latency (median, worst; and alone, before the big
// bodies, for the machine's load) and the mock's peak RSS.
// Targets: the 20 in <= 10 s, every small GET within 1 s. `node bench/mock-big-bodies.mjs
// [--requests 20] [--mb 5]` after `npm run build`; nothing asserts.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fmt, median } from './lib.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const REQUESTS = arg('requests', 20);
const MB = arg('mb', 5);
const CONCURRENCY = 4;
const { signRequest } = await import(new URL('../dist/signing/index.js', import.meta.url).href);

const child = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/mf/prof'] : []),
    new URL('./serve-mock.mjs', import.meta.url).pathname,
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
// the mock stops with this process, whatever happens
process.on('exit', () => child.kill('SIGKILL'));
const info = JSON.parse(await new Promise((resolve) => createInterface({ input: child.stdout }).once('line', resolve)));
const origin = new URL(info.baseUrl).origin;
const prefix = new URL(info.baseUrl).pathname;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function send(method, path, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      origin + path,
      {
        method,
        headers: { ...headers, ...(body ? { 'Content-Type': 'application/json', 'Content-Length': body.length } : {}) },
        agent,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// a JSON object of about MB megabytes: the kind of body the diagnosis used to re-serialize
const item = {
  id: 'x'.repeat(24),
  note: 'a customer note with some words in it',
  amount_minor: 123456,
  tags: ['a', 'b', 'c'],
  nested: { k: 'v', n: 1 },
};
const count = Math.ceil((MB * 1024 * 1024) / JSON.stringify(item).length);
const big = Buffer.from(JSON.stringify({ first_name: 'Big', items: Array.from({ length: count }, () => item) }));

function badlySigned() {
  const s = signRequest({
    method: 'POST',
    path: `${prefix}/customers`,
    keyId: info.keyId,
    secret: 'not-the-secret',
    timestamp: Math.floor(Date.now() / 1000),
    nonce: randomUUID(),
    body: big,
  });
  // a connection the mock reset (a mock too busy to read the body in time) counts as an answer of its own
  return send('POST', `${prefix}/customers`, big, s.headers).catch((err) => err.code ?? 'error');
}

function smallGet() {
  const path = `${prefix}/cards/${info.cardId}`;
  const s = signRequest({
    method: 'GET',
    path,
    keyId: info.keyId,
    secret: info.secret,
    timestamp: Math.floor(Date.now() / 1000),
    nonce: randomUUID(),
  });
  return send('GET', path, undefined, s.headers);
}

const peakRss = () => {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return NaN;
  }
};

// the small GET alone first: what the machine's load costs it without big bodies
const alone = [];
for (let i = 0; i < 10; i++) {
  const t = performance.now();
  await smallGet();
  alone.push(performance.now() - t);
  await new Promise((r) => setTimeout(r, 100));
}
const rssBefore = peakRss();
let done = false;
const latencies = [];
const smallStatuses = new Set();
const poller = (async () => {
  while (!done) {
    const t = performance.now();
    smallStatuses.add(await smallGet().catch((err) => err.code ?? 'error'));
    latencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 100));
  }
})();

const t0 = performance.now();
const statuses = new Set();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < REQUESTS) {
      next++;
      statuses.add(await badlySigned());
    }
  }),
);
const total = (performance.now() - t0) / 1000;
done = true;
await poller;
child.stdin.end();
agent.destroy();

console.log(
  `big bodies with a bad signature: ${REQUESTS} x ${fmt(big.length / 1048576, 1)} MB, ${CONCURRENCY} at a time (answers ${[...statuses].join(',')})`,
);
console.log(`  all ${REQUESTS} in ${fmt(total, 2)} s (target <= 10 s)`);
console.log(
  `  small GET meanwhile: ${latencies.length} sent (answers ${[...smallStatuses].join(',')}), median ${fmt(median(latencies), 1)} ms, worst ${fmt(Math.max(...latencies), 1)} ms (target <= 1000 ms); alone before: median ${fmt(median(alone), 1)} ms, worst ${fmt(Math.max(...alone), 1)} ms`,
);
console.log(`  mock peak RSS ${fmt(peakRss(), 0)} MiB (${fmt(rssBefore, 0)} MiB before)`);
