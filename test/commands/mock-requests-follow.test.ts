// `cardctl mock requests --follow` streams new requests until Ctrl-C (SIGINT), and
// `cardctl mock start --log` prints each request on stderr as it is answered (issue 18 item 3):
// the built CLI as child processes, the mock on port 0, requests signed by the test's own signer.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { rawRequest, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT } from '../helpers/cli.js';
import { signedCall } from '../helpers/independent-signer.js';

const sandbox = makeSandbox();
const children: ChildProcessWithoutNullStreams[] = [];
let mock: MockHandle | undefined;

afterEach(async () => {
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
    for (const w of [...waiters]) if (w.re.test(text)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(text));
  };
  child[stream].on('data', (d: Buffer) => ((text += d.toString()), check()));
  child.on('exit', () => waiters.splice(0).forEach((w) => w.reject(new Error(`exited before ${w.re}; ${stream}: ${text}`))));
  return { text: () => text, until: (re: RegExp) => new Promise<string>((resolve, reject) => (waiters.push({ re, resolve, reject }), check())) };
}

const exitOf = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

describe('mock requests --follow', () => {
  it('prints each new refusal with its diagnosis as it is answered, and stops on SIGINT with exit 0', async () => {
    mock = (await startMock({ port: 0, seed: 31, providerLatencyMs: 0 })) as unknown as MockHandle;
    const key = mock.keys.test;
    await signedCall({ port: mock.port, method: 'GET', path: '/api/v1/customers', keyId: key.keyId, secret: key.secret }); // answered 200 before: not shown with --failed
    const child = cli(['mock', 'requests', '--follow', '--failed'], { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken });
    const out = collect(child, 'stdout');
    const err = collect(child, 'stderr');
    // keep sending refusals until the follower shows them (it starts polling once it has read the log)
    let n = 0;
    const shown = out.until(/route_typo: No route GET \/api\/v1\/custmers/);
    const sender = (async () => {
      for (; n < 200 && !/route_typo/.test(out.text()); n++) {
        await signedCall({ port: mock!.port, method: 'GET', path: '/api/v1/custmers', keyId: key.keyId, secret: key.secret });
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
    await signedCall({ port, method: 'GET', path: '/api/v1/customers', query: 'per_page=1&cursor=a', signed: { query: 'per_page=1&cursor=a' }, ...key });
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
    const child = cli(['mock', 'requests', '--follow', '--failed', '--ndjson', '--jq', '.path'], { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken });
    const out = collect(child, 'stdout');
    const shown = out.until(/^\/api\/v1\/custmers$/m);
    for (let n = 0; n < 200 && !/custmers/.test(out.text()); n++) {
      await signedCall({ port: mock.port, method: 'GET', path: '/api/v1/custmers', keyId: key.keyId, secret: key.secret });
      await new Promise((r) => setTimeout(r, 100));
    }
    await shown;
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(0);
  });
});
