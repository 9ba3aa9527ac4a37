// `cardctl sign` through the built CLI, against the shared signing vectors.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox } from '../helpers/cli.js';

interface SigningVector {
  name: string;
  method: string;
  path: string;
  query: string;
  key_id: string;
  timestamp: string;
  nonce: string;
  secret: string;
  body_base64: string;
  canonical: string;
  signature: string;
}
const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/vectors/signing.json', import.meta.url), 'utf8'),
) as SigningVector[];
const sandbox = makeSandbox();
afterAll(() => sandbox.cleanup());

const SECRET = vectors[0]!.secret;
const env = {
  CARDCTL_API_SECRET: SECRET,
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  CARDCTL_BASE_URL: 'http://127.0.0.1:4010/api/v1',
};

function argsFor(v: SigningVector): string[] {
  const args = [
    'sign',
    '--json',
    '--method',
    v.method,
    '--path',
    v.path,
    '--key-id',
    v.key_id,
    '--timestamp',
    v.timestamp,
    '--nonce',
    v.nonce,
  ];
  if (v.query) args.push('--query', v.query);
  if (v.body_base64) {
    const file = join(sandbox.dir, `${v.name}.body`);
    writeFileSync(file, Buffer.from(v.body_base64, 'base64'));
    args.push('--data', `@${file}`);
  }
  return args;
}

describe('cardctl sign --json reproduces every signing vector', () => {
  it('has vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(10));
  // A few processes at a time: each is a full CLI start.
  for (let i = 0; i < vectors.length; i += 4) {
    const batch = vectors.slice(i, i + 4);
    it(batch.map((v) => v.name).join(', '), async () => {
      const results = await Promise.all(
        batch.map((v) => sandbox.run(argsFor(v), { env: { ...env, CARDCTL_API_SECRET: v.secret } })),
      );
      results.forEach((r, j) => {
        const v = batch[j]!;
        expect(r.code, `${v.name}: ${r.stderr}`).toBe(0);
        const out = JSON.parse(r.stdout) as {
          canonical: string;
          signature: string;
          body_sha256: string;
          headers: Record<string, string>;
        };
        expect(out.canonical, v.name).toBe(v.canonical);
        expect(out.signature, v.name).toBe(v.signature);
        expect(out.body_sha256).toBe(v.canonical.split('\n')[6]);
        // a money route (POST /api/v1/cards) also gets a generated Idempotency-Key, which is not signed
        const { 'Idempotency-Key': key, ...signedHeaders } = out.headers;
        expect(signedHeaders).toEqual({
          'X-Api-Key': v.key_id,
          'X-Timestamp': v.timestamp,
          'X-Nonce': v.nonce,
          'X-Signature': v.signature,
        });
        expect(key !== undefined, v.name).toBe(
          v.method.toUpperCase() === 'POST' && /^\/api\/v1\/cards(\/[^/]+\/(recharge|terminate))?\/?$/.test(v.path),
        );
        expect(r.stdout).not.toContain(v.secret);
      });
    });
  }
});

describe('cardctl sign', () => {
  const cursorVector = vectors.find((v) => v.name === 'cursor_with_base64_chars')!;

  it('prints a readable block and a curl command without the secret', async () => {
    const v = vectors.find((x) => x.name === 'post_json_body')!;
    const r = await sandbox.run(
      argsFor(v).filter((a) => a !== '--json'),
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1 METHOD       POST');
    expect(r.stdout).toContain('3 QUERY_STRING (empty)');
    expect(r.stdout).toContain(`X-Signature: ${v.signature}`);
    expect(r.stdout).toMatch(/curl -X POST http:\/\/127\.0\.0\.1:4010\/api\/v1\/cards/);
    expect(r.stdout).toMatch(/--data-binary @/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('accepts the query after "?" in --path, and signs a path relative to the base URL with a note', async () => {
    const v = cursorVector;
    const r = await sandbox.run(
      [
        'sign',
        '--json',
        '--method',
        'GET',
        '--path',
        `/deposits?${v.query}`,
        '--key-id',
        v.key_id,
        '--timestamp',
        v.timestamp,
        '--nonce',
        v.nonce,
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { canonical: string; signature: string; url: string; curl: string };
    expect(out.canonical).toBe(v.canonical);
    expect(out.signature).toBe(v.signature);
    expect(r.stderr).toMatch(/signing \/api\/v1\/deposits/);
    // the query goes out exactly as given, the URL quoted for the shell
    expect(out.url).toBe(`http://127.0.0.1:4010/api/v1/deposits?${v.query}`);
    expect(out.curl).toContain(`'http://127.0.0.1:4010/api/v1/deposits?${v.query}'`);
    expect(out.curl).not.toContain(SECRET);
  });

  it('quotes an inline body for the shell and turns off curl globbing for brackets', async () => {
    const r = await sandbox.run(
      [
        'sign',
        '--json',
        '--method',
        'post',
        '--path',
        '/api/v1/customers',
        '--query',
        'status[]=active',
        '--data',
        `{"note":"it's"}`,
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { curl: string; headers: Record<string, string> };
    expect(out.curl).toContain(`--data-binary '{"note":"it'\\''s"}'`);
    expect(out.curl).toContain('--globoff');
    expect(out.headers['X-Timestamp']).toMatch(/^\d{10}$/);
    expect(out.headers['X-Nonce']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reads the body from stdin with --data -', async () => {
    const v = vectors.find((x) => x.name === 'unicode_body')!;
    const args = argsFor({ ...v, body_base64: '' }).concat(['--data', '-']);
    const r = await sandbox.run(args, {
      env: { ...env, CARDCTL_API_SECRET: v.secret },
      input: Buffer.from(v.body_base64, 'base64'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { signature: string }).signature).toBe(v.signature);
  });

  it('refuses a query that is not valid UTF-8 (exit 2, says what to do)', async () => {
    const r = await sandbox.run(['sign', '--method', 'GET', '--path', '/customers', '--query', 'q=%FF'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/UTF-8/);
  });

  it('without a secret: exit 2 and how to provide one', async () => {
    const r = await sandbox.run(['sign', '--method', 'GET', '--path', '/customers'], {
      env: { CARDCTL_API_SECRET: undefined },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CARDCTL_API_SECRET|profile/i);
  });

  it('has no --secret flag', async () => {
    const r = await sandbox.run(['sign', '--method', 'GET', '--path', '/customers', '--secret', 'x'], { env });
    expect(r.code).toBe(2);
  });
});
