// Issue 30: lines printed beside the results escape what they quote, like every text from outside:
// a batch's result lines (src/output/batch.ts) quoting what the API said when it refused a row (its
// message, its hint), exact in the --json lines; and a command's notes on stderr (src/output/notes.ts,
// BaseCommand.note) quoting an argument. A server that refuses every row with a hostile 403 stands
// in for the API.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

/** A title change and a screen clear (OSC, CSI), a C1 CSI, a bidi override and NUL. */
const HOSTILE = 'x\u001b]0;X\u0007\u001b[2J\u009b31m\u202Eevil\u0000';
// every control character but newline and tab, the C1 range and the bidi controls
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let server: Server;
let sb: Sandbox;
let env: Record<string, string>;
let file: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.setHeader('Content-Type', 'application/json');
    res.writeHead(403);
    // the live-only route refuses a test key (how cardctl learns the key's mode: src/client/key-mode.ts)
    if (req.method === 'GET') return void res.end(JSON.stringify({ success: false, message: 'Live keys only.' }));
    res.end(JSON.stringify({ success: false, message: HOSTILE, errors: { scope: [HOSTILE] } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
    CARDCTL_API_SECRET: Buffer.alloc(32, 3).toString('base64'),
    CARDCTL_MODE: 'test',
  };
  file = join(sb.dir, 'recharges.csv');
  writeFileSync(file, 'card_id,amount\n01JD2Q7N8V3K4M5P6R7S8T9V0X,100\n');
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  sb?.cleanup();
});

describe('a batch row refused with a message from outside', () => {
  it('is escaped on the result line, and exact in the --json line', async () => {
    const text = await sb.run(['cards', 'recharge', '--batch', file, '--yes'], { env });
    expect(text.code).toBe(3);
    const row = text.stdout.split('\n').find((l) => l.startsWith('1 '));
    expect(row).toMatch(/^1 +error +403 /);
    expect(row).toContain('\\x1b]0;X\\x07');
    expect(text.stdout).not.toMatch(RAW);
    expect(text.stderr).not.toMatch(RAW);

    const json = await sb.run(['cards', 'recharge', '--batch', file, '--yes', '--json'], { env });
    expect(json.code).toBe(3);
    const line = JSON.parse(json.stdout.trim().split('\n')[0]!);
    expect(line.status).toBe('error');
    expect(line.error.message).toContain(HOSTILE);
  });
});

/** What a command line can carry (no NUL): the same sequences. */
const TYPED = HOSTILE.replace('\u0000', '');

describe('a note on stderr quoting what was typed', () => {
  it('sign --path with control characters: the note names the path escaped; --json keeps it exact', async () => {
    const args = ['sign', '--method', 'GET', '--path', `/cards/${TYPED}`, '--key-id', 'k', '--timestamp', '1700000000'];
    const text = await sb.run(args, { env: { CARDCTL_API_SECRET: env.CARDCTL_API_SECRET } });
    expect(text.code).toBe(0);
    expect(text.stderr).toContain('\\x1b]0;X\\x07');
    expect(text.stderr).not.toMatch(RAW);
    expect(text.stdout).not.toMatch(RAW);
    const json = await sb.run([...args, '--json'], { env: { CARDCTL_API_SECRET: env.CARDCTL_API_SECRET } });
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(TYPED).slice(1, -1));
  });
});
