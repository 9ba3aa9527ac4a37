#!/usr/bin/env node
// Memory of the mock's request log (issue 18): bounded by the log's size. Two mocks in turn, one
// with `requestLog: CAP`, one with the log off, get the same CAP requests, then 2 x CAP more
// (signed POST /customers with a ~1 KiB body that is refused 422, so each record holds a body
// and a diagnosis). Heap used after a full GC is read before, after CAP and after 3 x CAP
// requests. The log's cost is the difference between the two mocks (what both hold, such as
// the nonces of the last 600 s, cancels out): it grows with the first CAP requests and not
// after, and the bytes per record are printed.
// Usage: node bench/request-log-memory.mjs [--cap 2000]   (after `npm run build`; re-runs itself with --expose-gc)
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

if (typeof globalThis.gc !== 'function') {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

const args = process.argv.slice(2);
const i = args.indexOf('--cap');
const CAP = i >= 0 ? Number(args[i + 1]) : 2000;
const { startMock } = await import(new URL('../dist/mock/index.js', import.meta.url).href);
const { signRequest } = await import(new URL('../dist/signing/index.js', import.meta.url).href);

function heap() {
  for (let k = 0; k < 3; k++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

async function send(mock, agent, n) {
  const path = `${new URL(mock.baseUrl).pathname}/customers`;
  const body = Buffer.from(JSON.stringify({ first_name: 'B'.repeat(1000) }));
  let issued = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (issued++ < n) {
        const s = signRequest({
          method: 'POST',
          path,
          keyId: mock.keys.test.keyId,
          secret: mock.keys.test.secret,
          timestamp: Math.floor(Date.now() / 1000),
          nonce: randomUUID(),
          body,
        });
        await new Promise((resolve, reject) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port: mock.port,
              method: 'POST',
              path,
              headers: { ...s.headers, 'Content-Type': 'application/json', 'Content-Length': body.length },
              agent,
            },
            (res) => {
              res.resume();
              res.on('end', resolve);
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      }
    }),
  );
}

async function measure(requestLog) {
  const mock = await startMock({ port: 0, seed: 1, rateLimit: 1_000_000_000, providerLatencyMs: 0, requestLog });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  await send(mock, agent, 200); // warm
  const h0 = heap();
  await send(mock, agent, CAP);
  const h1 = heap();
  await send(mock, agent, 2 * CAP);
  const h3 = heap();
  agent.destroy();
  await mock.close();
  return { h0, h1, h3 };
}

const off = await measure(0);
const on = await measure(CAP);
const mib = (b) => (b / 1048576).toFixed(1);
const growFirst = on.h1 - on.h0 - (off.h1 - off.h0);
const growAfter = on.h3 - on.h1 - (off.h3 - off.h1);
console.log(
  `request log memory: capacity ${CAP}, POST bodies of ~1 KiB refused 422 (each record: the body and a diagnosis)`,
);
console.log(
  `log off: heap ${mib(off.h0)} -> ${mib(off.h1)} -> ${mib(off.h3)} MiB (after 0, ${CAP}, ${3 * CAP} requests)`,
);
console.log(`log on:  heap ${mib(on.h0)} -> ${mib(on.h1)} -> ${mib(on.h3)} MiB`);
console.log(
  `the log's own growth: first ${CAP} requests ${mib(growFirst)} MiB (${Math.round(growFirst / CAP)} bytes a record); next ${2 * CAP}: ${mib(growAfter)} MiB (bounded: ~0)`,
);
