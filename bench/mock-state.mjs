#!/usr/bin/env node
// Cost of a write as the mock's state grows, in memory and with --state, all in one run:
// mean latency of a signed recharge and of a card issue (8 concurrent clients, Idempotency-Key each)
// with 100, 5,000 and 50,000 cards held, and the p99 latency of a signed GET /cards/{id} made while
// the writes run. The grown states hold what a mock that issued those cards would hold: a customer
// per 10 cards, a webhook endpoint (a receiver in this process) and a delivery per card in its
// 30 days of history; an issue records an event and delivers it.
// The states are grown through the internal state API (records built with dist/mock/state.js and
// written as a state file), not over HTTP: growing to 50,000 cards over HTTP would take minutes.
// Each mock runs in its own child process, so a blocked event loop shows in the latencies.
// Usage: node bench/mock-state.mjs [--writes 400] [--clients 8]   (after `npm run build`)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fmt, percentile } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const WRITES = opt('writes', 400);
const ISSUES = opt('issues', 200);
const WARMUP = opt('warmup', 300);
const CLIENTS = opt('clients', 8);
const SIZES = [100, 5_000, 50_000];
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const { buildSeededState, nextSeq, walletKey } = await import(new URL('../dist/mock/state.js', import.meta.url).href);
const { newId, seededRandom } = await import(new URL('../dist/mock/random.js', import.meta.url).href);
const { signRequest } = await import(new URL('../dist/signing/index.js', import.meta.url).href);

/**
 * A seeded state holding `cards` active test cards of approved customers (one per 10 cards), the
 * events of their issue, an endpoint at `hookUrl` and a delivered webhook per card; the wallet paid
 * for the cards and holds enough for every issue the bench makes.
 */
function grownState(cards, hookUrl) {
  const now = Date.now();
  const rand = seededRandom(7);
  const { state, testKey } = buildSeededState(7, now);
  const merchant = state.default_merchant_id;
  const customers = Array.from({ length: Math.max(1, Math.ceil(cards / 10)) }, () => ({
    id: newId(rand, now),
    seq: nextSeq(state),
    merchant_id: merchant,
    fields: {
      first_name: 'Bench',
      last_name: 'Mark',
      email: 'bench@example.com',
      id_type: 'bvn',
      id_number: '22212345678',
      country: 'NGA',
    },
    status: 'active',
    kyc_status: 'approved',
    kyc_failure_reason: null,
    kyc_submitted_at: now,
    kyc_resolved_at: now,
    kyc_submit_due: null,
    kyc_verdict_due: null,
    kyc_mode: 'test',
    created_at: now,
  }));
  for (const c of customers) state.customers[c.id] = c;
  const endpoint = { id: newId(rand, now), merchant_id: merchant, url: hookUrl, created_at: now };
  state.endpoints[endpoint.id] = endpoint;
  const wallet = state.wallets[walletKey(merchant, 'test')];
  wallet.balance_minor += 100_000_000_000;
  wallet.initial_balance_minor += 100_000_000_000;
  const product = state.products.find((p) => p.default);
  for (let i = 0; i < cards; i++) {
    const id = newId(rand, now);
    const customer = customers[i % customers.length];
    const last4 = String(i % 10_000).padStart(4, '0');
    state.cards[id] = {
      id,
      seq: nextSeq(state),
      merchant_id: merchant,
      mode: 'test',
      product_id: product.id,
      customer_id: customer.id,
      status: 'active',
      masked_pan: `400000******${last4}`,
      last4,
      expiry: '12/29',
      expires_at: now + 3 * 365 * 86_400_000,
      currency: 'USD',
      balance_minor: 1000,
      pending_load_minor: 0,
      pending_fee_minor: 0,
      created_at: now,
    };
    state.transactions[id] = [];
    wallet.balance_minor -= 1000 + product.issue_fee_minor;
    wallet.fees_collected_minor += product.issue_fee_minor;
    const event = {
      id: newId(rand, now),
      seq: nextSeq(state),
      merchant_id: merchant,
      mode: 'test',
      type: 'card.issued',
      occurred_at: now,
      data: { card_id: id },
    };
    state.events.push(event);
    const delivery = {
      id: newId(rand, now),
      seq: nextSeq(state),
      event_id: event.id,
      endpoint_id: endpoint.id,
      merchant_id: merchant,
      type: event.type,
      body: JSON.stringify({ type: event.type, occurred_at: new Date(now).toISOString(), data: event.data }),
      attempts: [{ at: now, sent_at: now, status: 200, error: null, duration_ms: 1 }],
      state: 'succeeded',
      next_attempt_at: null,
      created_at: now,
    };
    state.deliveries[delivery.id] = delivery;
  }
  return {
    state,
    key: { keyId: testKey.key_id, secret: testKey.secret },
    cardIds: Object.keys(state.cards),
    customerId: customers[0].id,
  };
}

/** The webhook receiver of the grown states' endpoint: answers every delivery 204. */
async function startReceiver() {
  let received = 0;
  const server = http.createServer((req, res) =>
    req.resume().on('end', () => {
      received++;
      res.writeHead(204).end();
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    received: () => received,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Starts the mock in a child process; resolves with its origin once it listens. */
function startChild(options) {
  const code = `const { startMock } = await import(${JSON.stringify(new URL('../dist/mock/index.js', import.meta.url).href)});
const options = JSON.parse(process.argv[1]);
const floorFile = options.floorFile;
delete options.floorFile;
if (floorFile) {
  // the floor: no --state, but each write's answer waits for a group fdatasync of a line in a scratch file
  const http = await import('node:http');
  const fs = await import('node:fs');
  const fd = fs.openSync(floorFile, 'w', 0o600);
  const line = Buffer.from('[]\\n');
  let size = 0;
  let syncing = false;
  let waiting = [];
  const kick = () => {
    if (syncing || waiting.length === 0) return;
    const group = waiting;
    waiting = [];
    syncing = true;
    fs.fdatasync(fd, () => {
      syncing = false;
      for (const answer of group) answer();
      kick();
    });
  };
  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function (...a) {
    if (this.req.method === 'GET') return end.apply(this, a);
    size += fs.writeSync(fd, line, 0, line.length, size);
    waiting.push(() => end.apply(this, a));
    kick();
    return this;
  };
}
const m = await startMock(options);
process.stdout.write(JSON.stringify({ origin: new URL(m.baseUrl).origin }) + '\\n');
process.on('SIGTERM', () => m.close().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ child, origin: JSON.parse(out.slice(0, nl)).origin });
    });
    child.on('exit', (c) => reject(new Error(`mock exited ${c}`)));
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

function send(agent, origin, method, path, key, body, extra = {}) {
  const raw = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const s = signRequest({
    method,
    path,
    keyId: key.keyId,
    secret: key.secret,
    timestamp: Math.floor(Date.now() / 1000),
    nonce: randomUUID(),
    body: raw,
  });
  const u = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method,
        agent,
        headers: {
          ...s.headers,
          ...(raw ? { 'Content-Type': 'application/json', 'Content-Length': raw.length } : {}),
          ...extra,
        },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(raw);
  });
}

/** The two writes measured: a recharge of a random card (no event), and a card issue (an event and its webhook delivery). */
const WRITE_OPS = {
  recharge: (grown) => [
    'POST',
    `/api/v1/cards/${grown.cardIds[Math.floor(Math.random() * grown.cardIds.length)]}/recharge`,
    { amount: 1 },
    200,
  ],
  issue: (grown) => ['POST', '/api/v1/cards', { customer_id: grown.customerId, amount_minor: 1000 }, 201],
  // and a read that looks at every customer of the merchant: the first page of the list
  list: () => ['GET', '/api/v1/customers?per_page=20', undefined, 200],
};

/** `total` writes (`op`) by CLIENTS loops; while `reader`, one client GETs a card in a loop. */
async function writeLoad(origin, grown, total, reader, op = 'recharge') {
  const { key, cardIds } = grown;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 1 });
  const writes = [];
  const reads = [];
  const statuses = new Map();
  let issued = 0;
  let running = true;
  const readLoop = (async () => {
    while (reader && running) {
      const t = performance.now();
      const st = await send(agent, origin, 'GET', `/api/v1/cards/${cardIds[0]}`, key);
      reads.push(performance.now() - t);
      if (st !== 200) statuses.set(`GET ${st}`, (statuses.get(`GET ${st}`) ?? 0) + 1);
    }
  })();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (issued < total) {
        issued++;
        const [method, path, body, expected] = WRITE_OPS[op](grown);
        const t = performance.now();
        const st = await send(
          agent,
          origin,
          method,
          path,
          key,
          body,
          method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {},
        );
        writes.push(performance.now() - t);
        statuses.set(st === expected ? 'ok' : st, (statuses.get(st === expected ? 'ok' : st) ?? 0) + 1);
      }
    }),
  );
  running = false;
  await readLoop;
  agent.destroy();
  return {
    writeMs: writes.reduce((a, b) => a + b, 0) / writes.length,
    readP99: reads.length ? percentile(reads, 99) : 0,
    reads: reads.length,
    statuses,
  };
}

const ROUNDS = opt('rounds', 3);
/**
 * `floor` is the in-memory mock whose write answers each wait for a group fdatasync (of a short
 * line in a scratch file): what any design that answers only once a change is on disk costs at
 * least, on this machine's disk.
 */
const MODES = ['memory', 'floor', 'state'];
const dir = mkdtempSync(join(tmpdir(), 'cardctl-bench-state-'));
const results = [];
let failed = false;
const check = (label, r, expected) => {
  if ((r.statuses.get('ok') ?? 0) !== expected || [...r.statuses.keys()].some((k) => String(k).startsWith('GET'))) {
    console.log(`${label}: unexpected statuses ${JSON.stringify(Object.fromEntries(r.statuses))}`);
    failed = true;
  }
};
const receiver = await startReceiver();
try {
  for (const cards of SIZES) {
    const grown = grownState(cards, receiver.url);
    const { state } = grown;
    const seedFile = join(dir, `grown-${cards}.json`);
    writeFileSync(seedFile, JSON.stringify(state));
    const common = { port: 0, rateLimit: 1_000_000_000, providerLatencyMs: 0, snapshot: seedFile };
    // all three start from the grown state; with --state it becomes the state file's first base
    const started = {
      memory: await startChild(common),
      floor: await startChild({ ...common, floorFile: join(dir, `floor-${cards}`) }),
      state: await startChild({ ...common, stateFile: join(dir, `state-${cards}`, 'state.json') }),
    };
    try {
      const best = { memory: Infinity, floor: Infinity, state: Infinity };
      const bestIssue = { memory: Infinity, floor: Infinity, state: Infinity };
      const bestList = { memory: Infinity, state: Infinity };
      // warm-up: every kind of request, enough for the JIT to settle in each mock (a warm mock answers faster)
      for (const mode of MODES) {
        for (const op of ['recharge', 'issue', 'list']) await writeLoad(started[mode].origin, grown, WARMUP, false, op);
      }
      // alternate the three, keep each one's best round: the machine is shared and noisy
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of MODES) {
          const r = await writeLoad(started[mode].origin, grown, WRITES, false);
          check(`${mode} ${cards}`, r, WRITES);
          best[mode] = Math.min(best[mode], r.writeMs);
          const i = await writeLoad(started[mode].origin, grown, ISSUES, false, 'issue');
          check(`${mode} ${cards} issue`, i, ISSUES);
          bestIssue[mode] = Math.min(bestIssue[mode], i.writeMs);
          if (mode === 'floor') continue; // its reads are the in-memory mock's
          const l = await writeLoad(started[mode].origin, grown, ISSUES, false, 'list');
          check(`${mode} ${cards} list`, l, ISSUES);
          bestList[mode] = Math.min(bestList[mode], l.writeMs);
        }
      }
      await stopChild(started.floor.child); // done: it holds a grown state of its own
      const reads = {};
      if (cards === SIZES.at(-1)) {
        for (const mode of ['memory', 'state']) {
          const r = await writeLoad(started[mode].origin, grown, WRITES, true);
          check(`${mode} ${cards} with reads`, r, WRITES);
          reads[mode] = r;
        }
        // and while a compaction writes a new base of the whole state (forced by a small threshold)
        const compacting = await startChild({
          ...common,
          stateFile: join(dir, 'compacting', 'state.json'),
          compactAfterBytes: 200 * 1024,
        });
        try {
          // three times the writes: about 450 reads, so the p99 is not the second-worst read of 150
          const r = await writeLoad(compacting.origin, grown, 3 * WRITES, true);
          check(`state ${cards} compacting`, r, WRITES);
          reads.compacting = r;
        } finally {
          await stopChild(compacting.child);
        }
      }
      results.push({ cards, mode: 'floor', writeMs: best.floor, issueMs: bestIssue.floor });
      for (const mode of ['memory', 'state'])
        results.push({
          cards,
          mode,
          writeMs: best[mode],
          issueMs: bestIssue[mode],
          listMs: bestList[mode],
          readP99: reads[mode]?.readP99,
          reads: reads[mode]?.reads,
        });
      if (reads.compacting)
        results.push({
          cards,
          mode: 'compacting',
          writeMs: reads.compacting.writeMs,
          readP99: reads.compacting.readP99,
          reads: reads.compacting.reads,
        });
    } finally {
      await Promise.all(Object.values(started).map((s) => stopChild(s.child)));
    }
  }
  // last, so that its full-state writes (snapshots, fsynced restores) do not load the disk the writes above wait for:
  // restoring a snapshot of about 10,000 objects (2,450 cards, their transaction lists, events and deliveries), in process
  const { startMock } = await import(new URL('../dist/mock/index.js', import.meta.url).href);
  const { state } = grownState(2_450, receiver.url);
  const seedFile = join(dir, 'grown-restore.json');
  const text = JSON.stringify(state);
  writeFileSync(seedFile, text);
  for (const mode of ['memory', 'state']) {
    const m = await startMock({
      port: 0,
      snapshot: seedFile,
      ...(mode === 'state' ? { stateFile: join(dir, 'restore', 'state.json') } : {}),
    });
    try {
      const info = await m.saveSnapshot('bench');
      // baseline: JSON.parse of the same text, alternating with the restores
      const times = [];
      const parses = [];
      for (let i = 0; i < 15; i++) {
        let t = performance.now();
        await m.restoreSnapshot('bench');
        times.push(performance.now() - t);
        t = performance.now();
        JSON.parse(text);
        parses.push(performance.now() - t);
      }
      results.push({
        mode: `restore-${mode}`,
        objects: info.objects,
        restoreMs: percentile(times, 50),
        parseMs: percentile(parses, 50),
      });
    } finally {
      await m.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await receiver.close();
}

const at = (cards, mode) => results.find((r) => r.cards === cards && r.mode === mode);
const writeTable = (field) => {
  console.log(
    '| cards | in memory | floor (memory + fdatasync) | --state | --state / memory | floor / memory | --state / floor | --state / --state at 100 |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const cards of SIZES) {
    const [m, f, s] = ['memory', 'floor', 'state'].map((mode) => at(cards, mode)[field]);
    console.log(
      `| ${cards.toLocaleString('en-US')} | ${fmt(m)} ms | ${fmt(f)} ms | ${fmt(s)} ms | ${fmt(s / m)}x | ${fmt(f / m)}x | ${fmt(s / f)}x | ${fmt(s / at(SIZES[0], 'state')[field])}x |`,
    );
  }
};
console.log(
  `mock --state: ${WRITES} recharges by ${CLIENTS} concurrent clients, mean ms per write, best of ${ROUNDS} alternating rounds (states grown through the internal state API)`,
);
writeTable('writeMs');
console.log(
  `card issue (an event, and its webhook delivered to a receiver; ${SIZES.at(-1).toLocaleString('en-US')} cards hold as many deliveries in their history): ${ISSUES} issues, mean ms per write, best of ${ROUNDS}`,
);
writeTable('issueMs');
console.log(
  `GET /customers?per_page=20 (the first page of the merchant's customers, one per 10 cards): ${ISSUES} requests, mean ms, best of ${ROUNDS}`,
);
console.log('| cards | customers | in memory | --state | in memory / in memory at 100 |');
console.log('|---|---|---|---|---|');
for (const cards of SIZES) {
  const m = at(cards, 'memory');
  const s = at(cards, 'state');
  console.log(
    `| ${cards.toLocaleString('en-US')} | ${Math.ceil(cards / 10).toLocaleString('en-US')} | ${fmt(m.listMs)} ms | ${fmt(s.listMs)} ms | ${fmt(m.listMs / at(SIZES[0], 'memory').listMs)}x |`,
  );
}
const big = at(SIZES.at(-1), 'state');
const growth = Math.max(big.writeMs / at(SIZES[0], 'state').writeMs, big.issueMs / at(SIZES[0], 'state').issueMs);
const vsMemory = Math.max(
  ...SIZES.flatMap((c) => [
    at(c, 'state').writeMs / at(c, 'memory').writeMs,
    at(c, 'state').issueMs / at(c, 'memory').issueMs,
  ]),
);
console.log(
  `GET /cards/{id} p99 while ${CLIENTS} clients write, ${SIZES.at(-1).toLocaleString('en-US')} cards: --state ${fmt(big.readP99)} ms over ${big.reads} reads (in memory ${fmt(at(SIZES.at(-1), 'memory').readP99)} ms)`,
);
const comp = at(SIZES.at(-1), 'compacting');
console.log(
  `the same with compactions running (journal folded into a new base every 200 KiB, about every 150 writes, in a worker thread): GET p99 ${fmt(comp.readP99)} ms over ${comp.reads} reads, ${fmt(comp.writeMs)} ms per write`,
);
const floorVsMemory = Math.max(
  ...SIZES.flatMap((c) => [
    at(c, 'floor').writeMs / at(c, 'memory').writeMs,
    at(c, 'floor').issueMs / at(c, 'memory').issueMs,
  ]),
);
const vsFloor = Math.max(
  ...SIZES.flatMap((c) => [
    at(c, 'state').writeMs / at(c, 'floor').writeMs,
    at(c, 'state').issueMs / at(c, 'floor').issueMs,
  ]),
);
console.log(
  `growth=${fmt(growth)}x (target <= 1.3x)  state/memory=${fmt(vsMemory)}x (target <= 2x; the fsync floor alone is floor/memory=${fmt(floorVsMemory)}x)  state/floor=${fmt(vsFloor)}x  get_p99=${fmt(Math.max(big.readP99, comp.readP99))} ms (target < 20 ms)`,
);
for (const mode of ['memory', 'state']) {
  const r = results.find((x) => x.mode === `restore-${mode}`);
  console.log(
    `snapshot restore, ${r.objects.toLocaleString('en-US')} objects, ${mode === 'state' ? 'with --state (journaled and fsynced)' : 'in memory'}: median ${fmt(r.restoreMs)} ms of 15 (${fmt(r.restoreMs / r.parseMs)}x a JSON.parse of the same state, ${fmt(r.parseMs)} ms)`,
  );
}
console.log(`webhook deliveries received by the endpoint during the run: ${receiver.received()}`);
if (failed) process.exitCode = 1;
