// Issue 30, one output path: what a command returns is printed by src/output, never by the
// command. The pieces beside the plain Result: an exit code carried by a result (a verdict that
// is the output but says "no"), a failure shown after the output (text) or instead of it
// (--json), and a streaming result (webhooks listen, mock start) printed item by item as text
// lines, NDJSON lines, or through --jq line by line. In memory for the renderer, then through
// the built CLI where the user sees it. Canary secrets only; none may be printed.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ItemQueue, renderStream, streamResult, type StreamItem } from '../../src/output/stream.js';
import { outcome, render, result } from '../../src/output/render.js';
import { signWebhook } from '../../src/signing/index.js';
import { nowSeconds } from '../helpers/api.js';
import { BIN, ROOT, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { exitOf, startMockProcess, type MockProcess } from '../helpers/mock-process.js';
import { memoryStream as memory, memoryIo as interleaved } from '../helpers/memory-io.js';

const WEBHOOK_SECRET = 'whsec_canary-result-render-5f0c2a9e7d41b3';

describe('the renderer (in memory)', () => {
  it('a result carries its exit code and failure for BaseCommand, and renders as before', async () => {
    const r = outcome(
      result({ valid: false }, () => 'no\n', ['note']),
      { exitCode: 3 },
    );
    expect(r.exitCode).toBe(3);
    const { io, log } = interleaved();
    await render(io, r, false);
    expect(log).toEqual([
      ['out', 'no\n'],
      ['err', 'note\n'],
    ]);
    const json = interleaved();
    await render(json.io, r, true);
    expect(json.log[0]).toEqual(['out', '{\n  "valid": false\n}\n']);
  });

  it('a text function is given the stdout it goes to', async () => {
    const out = memory();
    const seen: unknown[] = [];
    await render(
      { stdout: out.stream, stderr: memory().stream },
      result({}, (stream) => (seen.push(stream), 'x\n')),
      false,
    );
    expect(seen).toEqual([out.stream]);
    expect(out.text()).toBe('x\n');
  });

  it('a streaming result prints each item as it comes: text lines, or one compact JSON line each, its notes after it', async () => {
    const items: StreamItem[] = [
      { json: { listening: 'u' }, text: null },
      { json: { n: 1 }, text: 'one\n', notes: ['hint'] },
      { json: { n: 2 }, text: 'two\n' },
    ];
    async function* gen() {
      yield* items;
    }
    const text = interleaved();
    const code = await renderStream(
      text.io,
      streamResult(gen(), () => ({ notes: ['stopped'], exitCode: 3 })),
      false,
    );
    expect(code).toBe(3);
    expect(text.log).toEqual([
      ['out', 'one\n'],
      ['err', 'hint\n'],
      ['out', 'two\n'],
      ['err', 'stopped\n'],
    ]);
    const json = interleaved();
    expect(await renderStream(json.io, streamResult(gen()), true)).toBeUndefined();
    expect(json.log).toEqual([
      ['out', '{"listening":"u"}\n'],
      ['out', '{"n":1}\n'],
      ['err', 'hint\n'],
      ['out', '{"n":2}\n'],
    ]);
  });

  it('an item pushed into an ItemQueue is printed before the next is pushed; close ends the stream after what was pushed', async () => {
    const q = new ItemQueue<StreamItem>();
    const out = memory();
    const done = renderStream({ stdout: out.stream, stderr: memory().stream }, streamResult(q), false);
    q.push({ json: 1, text: 'a\n' });
    await until(
      () => (out.text() === 'a\n' ? true : undefined),
      () => out.text(),
    );
    q.push({ json: 2, text: 'b\n' });
    q.close();
    q.push({ json: 3, text: 'dropped\n' });
    await done;
    expect(out.text()).toBe('a\nb\n');
  });
});

// ---- through the built CLI ----

let sb: Sandbox;
let payload: string;
const children: ChildProcessWithoutNullStreams[] = [];
let mock: MockProcess | undefined;

beforeAll(() => {
  sb = makeSandbox();
  payload = join(sb.dir, 'event.json');
  writeFileSync(payload, '{"id":"evt_1","type":"card.issued","data":{"card_id":"c1"}}');
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await mock?.stop();
  sb?.cleanup();
});

const env = () => ({ CARDCTL_WEBHOOK_SECRET: WEBHOOK_SECRET });

describe('an exit code on a result (webhooks verify --json on a bad signature)', () => {
  it('prints the verdict as the one document and exits 3; --jq filters it and exits 3 too', async () => {
    const header = `t=${nowSeconds()}, v1=${'0'.repeat(64)}`;
    const json = await sb.run(['webhooks', 'verify', '--header', header, '--payload', payload, '--json'], {
      env: env(),
    });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, reason: 'signature_mismatch' });
    expect(json.stderr).toBe('');
    const jq = await sb.run(['webhooks', 'verify', '--header', header, '--payload', payload, '--jq', '.reason'], {
      env: env(),
    });
    expect(jq).toMatchObject({ code: 3, stdout: 'signature_mismatch\n' });
    for (const r of [json, jq]) expect(r.stdout + r.stderr).not.toContain(WEBHOOK_SECRET);
  });

  it('a valid signature exits 0', async () => {
    const body = '{"id":"evt_1","type":"card.issued","data":{"card_id":"c1"}}';
    const header = signWebhook(WEBHOOK_SECRET, body, nowSeconds());
    const r = await sb.run(['webhooks', 'verify', '--header', header, '--payload', payload], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^valid: the signature matches/);
  });
});

describe('a failure on a result (request on a 404)', () => {
  it('text: the answer on stdout, then the error on stderr, exit 4; --json: the error alone is the document', async () => {
    mock = await startMockProcess(sb, ['--seed', '41']);
    const keys = mock.banner.keys.test;
    const apiEnv = {
      CARDCTL_API_KEY: keys.key_id,
      CARDCTL_API_SECRET: keys.secret,
      CARDCTL_BASE_URL: mock.banner.base_url,
    };
    const path = '/cards/01JD2Q7N8V3K4M5P6R7S8T9V0W';
    const text = await sb.run(['request', 'GET', path], { env: apiEnv });
    expect(text.code).toBe(4);
    expect(JSON.parse(text.stdout)).toMatchObject({ success: false }); // the API's envelope, as sent
    expect(text.stderr).toMatch(/^Error: /);
    const json = await sb.run(['request', 'GET', path, '--json'], { env: apiEnv });
    expect(json.code).toBe(4);
    const doc = JSON.parse(json.stdout);
    expect(Object.keys(doc)).toEqual(['error']);
    expect(doc.error.status).toBe(404);
    for (const r of [text, json]) expect(r.stdout + r.stderr).not.toContain(keys.secret);
  });
});

// ---- a streaming result: webhooks listen ----

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CARDCTL_')) out[k] = v;
  return { ...out, ...sb.env, NO_COLOR: '1', ...extra };
}

/** Bounded wait for something the child does on its own; the bound only turns a hang into a message. */
async function until<T>(get: () => T | undefined, what: () => string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function listen(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', ...args], {
    cwd: ROOT,
    env: childEnv(env()),
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const state = () => `stdout ${JSON.stringify(stdout)}; stderr ${JSON.stringify(stderr)}`;
  const port = until(
    () => /Listening on http:\/\/127\.0\.0\.1:(\d+)\/webhooks;/.exec(stderr)?.[1],
    () => `the listening banner; ${state()}`,
  ).then(Number);
  return {
    child,
    port,
    stdout: () => stdout,
    stderr: () => stderr,
    /** waits until stdout holds n lines */
    lines: (n: number) =>
      until(
        () => {
          const lines = stdout.split('\n').slice(0, -1);
          return lines.length >= n ? lines : undefined;
        },
        () => `${n} stdout lines; ${state()}`,
      ),
  };
}

/** Posts one delivery, signed (or, with `forged`, signed with another secret); resolves with the status. */
function deliver(port: number, id: string, forged = false): Promise<number> {
  const body = JSON.stringify({ id, type: 'card.issued', data: { card_id: `card_${id}` } });
  const headers = {
    'Content-Type': 'application/json',
    'X-Service-Event': 'card.issued',
    'X-Service-Delivery': id,
    'X-Service-Signature': signWebhook(forged ? 'whsec_another-secret' : WEBHOOK_SECRET, body, nowSeconds()),
  };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/webhooks', method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a streaming result (webhooks listen): each item printed as it comes', () => {
  it('text: one line per delivery, each before the next delivery is sent; the count and exit 3 at the end', async () => {
    const l = listen(['--max-events', '2']);
    const port = await l.port;
    expect(await deliver(port, 'dlv_text_1')).toBe(200);
    const [first] = await l.lines(1);
    expect(first).toMatch(/ card\.issued {2}dlv_text_1 {2}valid {2}card_id=card_dlv_text_1 {2}-> 200$/);
    expect(await deliver(port, 'dlv_text_2', true)).toBe(400);
    expect(await exitOf(l.child)).toBe(3);
    const lines = l.stdout().split('\n').slice(0, -1);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('dlv_text_2  INVALID (signature_mismatch)');
    // the hint follows the first refusal; the count is the last stderr line
    expect(l.stderr()).toMatch(
      /hint: signature_mismatch[^\n]*\nStopped after 2 deliveries, 1 failed verification\.\n$/,
    );
    expect(l.stdout() + l.stderr()).not.toContain(WEBHOOK_SECRET);
  });

  it('--json: the listening line, then one NDJSON line per delivery as it comes; exit 0', async () => {
    const l = listen(['--max-events', '2', '--json']);
    const port = await l.port;
    const [listening] = await l.lines(1);
    expect(JSON.parse(listening!)).toEqual({
      listening: `http://127.0.0.1:${port}/webhooks`,
      endpoint_id: null,
      forward_to: null,
    });
    expect(await deliver(port, 'dlv_json_1')).toBe(200);
    const [, one] = await l.lines(2);
    expect(JSON.parse(one!)).toMatchObject({ delivery_id: 'dlv_json_1', valid: true, status: 200 });
    expect(await deliver(port, 'dlv_json_2')).toBe(200);
    expect(await exitOf(l.child)).toBe(0);
    const lines = l.stdout().split('\n').slice(0, -1);
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => JSON.parse(line).delivery_id)).toEqual([undefined, 'dlv_json_1', 'dlv_json_2']);
    expect(l.stderr()).not.toMatch(/Stopped after/); // with --json the count is said only when a delivery failed
    expect(l.stdout() + l.stderr()).not.toContain(WEBHOOK_SECRET);
  });

  it('--jq: each line filtered as it comes, the first before the next delivery is sent', async () => {
    const l = listen(['--max-events', '2', '--jq', '.delivery_id // .listening']);
    const port = await l.port;
    const [listening] = await l.lines(1);
    expect(listening).toBe(`http://127.0.0.1:${port}/webhooks`);
    expect(await deliver(port, 'dlv_jq_1')).toBe(200);
    expect((await l.lines(2))[1]).toBe('dlv_jq_1');
    expect(await deliver(port, 'dlv_jq_2')).toBe(200);
    expect(await exitOf(l.child)).toBe(0);
    expect(l.stdout()).toBe(`http://127.0.0.1:${port}/webhooks\ndlv_jq_1\ndlv_jq_2\n`);
  });
});

describe('a streaming result that runs until stopped (mock start)', () => {
  it('--json: the banner is the one line, printed while it serves; SIGTERM ends it with exit 0', async () => {
    const m = await startMockProcess(sb, ['--seed', '42']);
    try {
      expect(m.banner.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    } finally {
      expect(await m.stop()).toBe(0);
    }
  });
});
