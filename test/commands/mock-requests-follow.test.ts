// `cardctl mock requests --follow` streams new requests until Ctrl-C (SIGINT), and
// `cardctl mock start --log` prints each request on stderr as it is answered (issue 18 item 3):
// the built CLI as child processes, the mock on port 0, requests signed by the test's own signer.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { control, ctl, rawRequest, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT } from '../helpers/cli.js';
import { signedCall } from '../helpers/independent-signer.js';

const sandbox = makeSandbox();
const children: ChildProcessWithoutNullStreams[] = [];
const sockets: net.Socket[] = [];
let mock: MockHandle | undefined;

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await mock?.close();
  mock = undefined;
});
afterAll(() => sandbox.cleanup());

function cli(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  const full: NodeJS.ProcessEnv = { ...process.env, ...sandbox.env, ...env, NO_COLOR: '1' };
  for (const k of Object.keys(full)) if (k.startsWith('CARDCTL_') && !(k in sandbox.env) && !(k in env)) delete full[k];
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: full });
  children.push(child);
  return child;
}

/** Collects a stream's text; `until(re)` resolves once the text so far matches (rejects if the process ends first). */
function collect(child: ChildProcessWithoutNullStreams, stream: 'stdout' | 'stderr') {
  let text = '';
  const waiters: Array<{ re: RegExp; resolve: (t: string) => void; reject: (e: Error) => void }> = [];
  const check = () => {
    for (const w of [...waiters]) if (w.re.test(text)) waiters.splice(waiters.indexOf(w), 1), w.resolve(text);
  };
  child[stream].on('data', (d: Buffer) => ((text += d.toString()), check()));
  child.on('exit', () =>
    waiters.splice(0).forEach((w) => w.reject(new Error(`exited before ${w.re}; ${stream}: ${text}`))),
  );
  return {
    text: () => text,
    until: (re: RegExp) => new Promise<string>((resolve, reject) => (waiters.push({ re, resolve, reject }), check())),
  };
}

const exitOf = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code)),
  );

describe('mock requests --follow', () => {
  it('prints each new refusal with its diagnosis as it is answered, and stops on SIGINT with exit 0', async () => {
    mock = (await startMock({ port: 0, seed: 31, providerLatencyMs: 0 })) as unknown as MockHandle;
    const key = mock.keys.test;
    await signedCall({
      port: mock.port,
      method: 'GET',
      path: '/api/v1/customers',
      keyId: key.keyId,
      secret: key.secret,
    }); // answered 200 before: not shown with --failed
    const child = cli(['mock', 'requests', '--follow', '--failed'], {
      CARDCTL_MOCK_URL: mock.controlUrl,
      CARDCTL_MOCK_TOKEN: mock.controlToken,
    });
    const out = collect(child, 'stdout');
    const err = collect(child, 'stderr');
    // keep sending refusals until the follower shows them (it starts polling once it has read the log)
    let n = 0;
    const shown = out.until(/route_typo: No route GET \/api\/v1\/custmers/);
    const sender = (async () => {
      for (; n < 200 && !/route_typo/.test(out.text()); n++) {
        await signedCall({
          port: mock!.port,
          method: 'GET',
          path: '/api/v1/custmers',
          keyId: key.keyId,
          secret: key.secret,
        });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await shown;
    await sender;
    await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/cards' });
    await out.until(/401 missing_signature_headers .*headers_missing/);
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
    expect(out.text()).not.toMatch(/ 200 /);
    expect(err.text()).not.toMatch(/Error|at .*\.js/);
  });
});

describe('mock start --log', () => {
  it('prints each request on stderr as it is answered, with the diagnosis of a refusal', async () => {
    const child = cli(['mock', 'start', '--port', '0', '--json', '--log', '--seed', '32']);
    const out = collect(child, 'stdout');
    const err = collect(child, 'stderr');
    const banner = JSON.parse((await out.until(/\n/)).split('\n')[0]!);
    const port = Number(new URL(banner.base_url).port);
    const key = { keyId: banner.keys.test.key_id, secret: banner.keys.test.secret };
    await signedCall({ port, method: 'GET', path: '/api/v1/customers', query: 'per_page=1', ...key });
    await signedCall({
      port,
      method: 'GET',
      path: '/api/v1/customers',
      query: 'per_page=1&cursor=a',
      signed: { query: 'per_page=1&cursor=a' },
      ...key,
    });
    await err.until(/req_2 +GET \/api\/v1\/customers\?per_page=1&cursor=a +401 invalid_signature .*query_not_sorted/);
    expect(err.text()).toMatch(/req_1 +GET \/api\/v1\/customers\?per_page=1 +200/);
    expect(err.text()).not.toContain(key.secret);
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });
});

describe('--jq on a command that runs until Ctrl-C: results as they come, not at the stop', () => {
  it('mock start --jq .base_url prints the URL while the mock runs', async () => {
    const child = cli(['mock', 'start', '--port', '0', '--seed', '33', '--jq', '.base_url']);
    const out = collect(child, 'stdout');
    const url = (await out.until(/\n/)).trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    const answer = await rawRequest({ port: Number(new URL(url).port), method: 'GET', path: '/api/v1/cards' });
    expect(answer.status).toBe(401); // the mock is up at the URL printed
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
    expect(out.text().trim()).toBe(url);
  });

  it('mock requests --follow --ndjson --jq prints each new record filtered as it is answered', async () => {
    mock = (await startMock({ port: 0, seed: 34, providerLatencyMs: 0 })) as unknown as MockHandle;
    const key = mock.keys.test;
    const child = cli(['mock', 'requests', '--follow', '--failed', '--ndjson', '--jq', '.path'], {
      CARDCTL_MOCK_URL: mock.controlUrl,
      CARDCTL_MOCK_TOKEN: mock.controlToken,
    });
    const out = collect(child, 'stdout');
    const shown = out.until(/^\/api\/v1\/custmers$/m);
    for (let n = 0; n < 200 && !/custmers/.test(out.text()); n++) {
      await signedCall({
        port: mock.port,
        method: 'GET',
        path: '/api/v1/custmers',
        keyId: key.keyId,
        secret: key.secret,
      });
      await new Promise((r) => setTimeout(r, 100));
    }
    await shown;
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });
});

describe('mock requests --follow never skips silently: what the log dropped before it was read is said on stderr (issue 21 decisions, item 2)', () => {
  /** Starts a follower, makes sure it polls, stops it (SIGSTOP), sends a burst of 50, lets it go on. */
  async function burstWhileStopped(args: string[]) {
    mock = (await startMock({ port: 0, seed: 35, providerLatencyMs: 0, requestLog: 5 })) as unknown as MockHandle;
    const port = mock.port;
    const child = cli(['mock', 'requests', '--follow', ...args], {
      CARDCTL_MOCK_URL: mock.controlUrl,
      CARDCTL_MOCK_TOKEN: mock.controlToken,
    });
    const out = collect(child, 'stdout');
    const err = collect(child, 'stderr');
    // the follower is polling once it shows a request sent after it started
    const shown = out.until(/\/api\/v1\/cards\b/);
    for (let n = 0; n < 200 && !/\/api\/v1\/cards\b/.test(out.text()); n++) {
      await rawRequest({ port, method: 'GET', path: '/api/v1/cards' });
      await new Promise((r) => setTimeout(r, 100));
    }
    await shown;
    child.kill('SIGSTOP'); // between two polls, for certain
    await Promise.all(Array.from({ length: 50 }, () => rawRequest({ port, method: 'GET', path: '/api/v1/customers' })));
    child.kill('SIGCONT');
    await rawRequest({ port, method: 'GET', path: '/api/v1/deposits' }); // the last one: shown once the follower caught up
    await out.until(/\/api\/v1\/deposits\b/);
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
    const [last] = (await ctl(mock, 'GET', '/requests?limit=1')) as Array<{ id: string }>;
    return { out: out.text(), err: err.text(), lastSeq: Number(last!.id.replace('req_', '')) };
  }

  it('--ndjson: stdout stays NDJSON records; each gap is one JSON line on stderr; printed and dropped ids cover every request once', async () => {
    const { out, err, lastSeq } = await burstWhileStopped(['--ndjson']);
    const records = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(records.every((r) => /^req_\d+$/.test(r.id))).toBe(true); // no gap line in stdout
    const gaps = err
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).gap as { count: number; first: string; last: string; capacity: number });
    expect(gaps.length).toBeGreaterThan(0);
    expect(gaps.every((g) => g.capacity === 5)).toBe(true);
    const seen: number[] = records.map((r) => Number(r.id.slice(4)));
    for (const g of gaps) {
      const [a, b] = [Number(g.first.slice(4)), Number(g.last.slice(4))];
      expect(g.count).toBe(b - a + 1);
      for (let s = a; s <= b; s++) seen.push(s);
    }
    seen.sort((x, y) => x - y);
    const first = seen[0]!;
    expect(seen).toEqual(Array.from({ length: lastSeq - first + 1 }, (_, i) => first + i)); // none missing, none twice
    expect(gaps.reduce((n, g) => n + g.count, 0)).toBeGreaterThanOrEqual(45); // the burst of 50 into a log of 5
  });

  it('text: the gap is a sentence on stderr naming the ids, the log size and what to do', async () => {
    const { out, err } = await burstWhileStopped([]);
    expect(err).toMatch(
      /^cardctl: \d+ requests \(req_\d+ to req_\d+\) left the mock's request log \(it keeps the last 5\) before they could be read: not shown\. To keep up, start the mock with a larger --request-log\.$/m,
    );
    expect(out).not.toMatch(/left the mock's request log/);
    expect(out).toMatch(/GET \/api\/v1\/deposits +401/);
  });

  it('a request still being answered when the follower reads past it (they finish out of order) is printed once it is answered', async () => {
    mock = (await startMock({ port: 0, seed: 36, providerLatencyMs: 0 })) as unknown as MockHandle;
    const port = mock.port;
    const child = cli(['mock', 'requests', '--follow', '--ndjson'], {
      CARDCTL_MOCK_URL: mock.controlUrl,
      CARDCTL_MOCK_TOKEN: mock.controlToken,
    });
    const out = collect(child, 'stdout');
    const shown = out.until(/\/api\/v1\/cards"/);
    for (let n = 0; n < 200 && !/\/api\/v1\/cards"/.test(out.text()); n++) {
      await rawRequest({ port, method: 'GET', path: '/api/v1/cards' });
      await new Promise((r) => setTimeout(r, 100));
    }
    await shown;
    // a slow request: its headers arrive (its id is taken), its body not yet
    const slow = net.connect(port, '127.0.0.1');
    sockets.push(slow);
    const answered = new Promise<string>((resolve) => {
      let text = '';
      slow.on('data', (d: Buffer) => ((text += d.toString()), /\r\n\r\n/.test(text) && resolve(text)));
    });
    await new Promise<void>((resolve) =>
      slow.write(
        'POST /api/v1/slow-one HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{"a"',
        () => resolve(),
      ),
    );
    // until the mock took its headers: it is then in meta.pending of a read
    for (
      let n = 0;
      n < 100 &&
      (await control(mock, 'GET', '/_mock/requests?after=0&order=oldest&limit=1')).body.meta.pending.length === 0;
      n++
    )
      await new Promise((r) => setTimeout(r, 20));
    // newer requests are answered first, and the follower prints them (reading past the slow one)
    await rawRequest({ port, method: 'GET', path: '/api/v1/customers' });
    await out.until(/\/api\/v1\/customers"/);
    slow.end(':1}\r\n');
    await answered;
    await rawRequest({ port, method: 'GET', path: '/api/v1/deposits' });
    await out.until(/\/api\/v1\/deposits"/);
    // one more poll after the one that printed the marker: by then the slow one must be out
    await rawRequest({ port, method: 'GET', path: '/api/v1/withdrawals' });
    await out.until(/\/api\/v1\/withdrawals"/);
    expect(out.text()).toContain('"/api/v1/slow-one"');
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
    const ids = out
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id as string);
    expect(new Set(ids).size).toBe(ids.length); // none twice
    const slowRecord = out
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((r) => r.path === '/api/v1/slow-one');
    const customers = out
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((r) => r.path === '/api/v1/customers');
    expect(Number(slowRecord.id.slice(4))).toBeLessThan(Number(customers.id.slice(4))); // it was older than one printed before it
  });
});
