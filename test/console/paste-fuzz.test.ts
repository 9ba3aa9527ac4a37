// The console's diagnosis box never fails with a 500 whatever is pasted (issue 37): random text,
// random curl command lines and random HAR-shaped JSON, through the real console of a mock on
// port 0 (logged in with its one-time code). Each answer is 200 (diagnosed) or 422 (says why not).
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';

let mock: Awaited<ReturnType<typeof startMock>>;
let cookie = '';
let origin = '';

beforeAll(async () => {
  mock = await startMock({ port: 0, seed: 43, providerLatencyMs: 0 });
  origin = new URL(mock.baseUrl).origin;
  const opened = await fetch(mock.consoleLoginUrl(), { redirect: 'manual' });
  cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
});
afterAll(async () => {
  await mock?.close();
});

const paste = async (text: string): Promise<number> => {
  const res = await fetch(`${origin}/_console/api/diagnose`, {
    method: 'POST',
    headers: { Cookie: cookie, Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text, key_id: '' }),
  });
  await res.arrayBuffer();
  return res.status;
};

const word = fc.oneof(
  fc.string(),
  fc.constantFrom('-X', '-H', '-d', '--data-raw', '--data-binary', '--url', "$'\\x41'", "'a b'", '"q"', '\\', '@f'),
);

it('answers 200 or 422 to anything pasted, never a 500', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string(),
        fc.array(word, { maxLength: 8 }).map((w) => `curl http://h/api/v1/${w.join(' ')}`),
        fc.jsonValue().map((v) => JSON.stringify({ log: { entries: [v, { request: v }] } })),
        fc
          .record({ method: fc.string(), url: fc.string(), headers: fc.jsonValue() })
          .map((r) => JSON.stringify({ log: { entries: [{ request: { ...r, url: `http://h/api/v1/${r.url}` } }] } })),
        fc.string().map((t) => `GET /api/v1/${t} HTTP/1.1\nX-Api-Key: ${mock.keys.test.keyId}\n\n`),
      ),
      async (text) => {
        expect([200, 422]).toContain(await paste(text));
      },
    ),
    { numRuns: 300, seed: 20261201 },
  );
}, 120_000);
