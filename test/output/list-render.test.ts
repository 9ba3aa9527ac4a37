// The one list renderer (src/output/list.ts, issue 30): list commands return their pages and the
// renderer pulls them as it writes. What a user checks: `--all --ndjson` writes each page before
// the next is asked for (streaming stays streaming), a slow reader holds the next page back
// (backpressure), the pages' session closes after the last page and also when the output fails,
// the "More ...: add --cursor X" hint is escaped, and every format shows the same rows.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderList, type ListPage } from '../../src/output/list.js';
import { renderStream, streamResult, type StreamItem } from '../../src/output/stream.js';
import { startMock } from '../../src/mock/index.js';
import { createCustomer, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT, type Sandbox } from '../helpers/cli.js';
import { parseCsv } from '../helpers/rfc4180.js';
import { memoryIo } from '../helpers/memory-io.js';

describe('renderList (in-process)', () => {
  it('--ndjson: a page is written before the next one is pulled, and a full stdout holds the next page back', async () => {
    const log: string[] = [];
    let drained = false;
    // a stdout whose reader is slow: the first write fills it, 'drain' comes only when the test says
    const stdout = new Writable({
      highWaterMark: 1,
      write(chunk, _e, cb) {
        log.push(`wrote ${chunk.toString().trim()}`);
        if (drained) cb();
        else setImmediate(() => ((drained = true), log.push('drain'), cb()));
      },
    });
    async function* pages(): AsyncGenerator<ListPage<{ id: number }>> {
      for (let p = 1; p <= 3; p++) {
        log.push(`pull ${p}`);
        yield { data: [{ id: p }] };
      }
    }
    const { io } = memoryIo();
    await renderList({ stdout, stderr: io.stderr }, { kind: 'list', pages: pages(), format: 'ndjson', table: [] });
    expect(log).toEqual([
      'pull 1',
      'wrote {"id":1}',
      'drain', // page 2 is pulled only once the reader took page 1
      'pull 2',
      'wrote {"id":2}',
      'pull 3',
      'wrote {"id":3}',
    ]);
  });

  it("closes the pages' session after the last page, and also when the output fails half-way (a --columns typo)", async () => {
    const events: string[] = [];
    async function* inSession(): AsyncGenerator<ListPage> {
      events.push('open');
      try {
        yield { data: [{ id: 'a' }], meta: { has_more: true, next_cursor: 'c1' } };
        yield { data: [{ id: 'b' }] };
      } finally {
        events.push('close');
      }
    }
    const ok = memoryIo();
    await renderList(ok.io, { kind: 'list', pages: inSession(), format: 'csv', columns: ['id'], table: [] });
    expect(ok.out()).toBe('id\r\na\r\nb\r\n');
    expect(events).toEqual(['open', 'close']);

    events.length = 0;
    const bad = memoryIo();
    await expect(
      renderList(bad.io, { kind: 'list', pages: inSession(), format: 'csv', columns: ['emial'], table: [] }),
    ).rejects.toThrow('no field is named "emial"');
    expect(events).toEqual(['open', 'close']);
    expect(bad.out()).toBe('');
  });

  it('the same rows in every format; the hint names the next cursor escaped, the notes come after', async () => {
    const rows = [
      { id: 'cus_1', email: 'a@example.com' },
      { id: 'cus_2', email: 'b@example.com' },
    ];
    const list = (format: 'table' | 'json' | 'ndjson' | 'csv' | 'tsv') => ({
      kind: 'list' as const,
      pages: [{ data: rows, meta: { has_more: true, next_cursor: 'next\x1b[2J\u202E' } }],
      format,
      table: [
        { header: 'ID', get: (r: Record<string, unknown>) => r.id },
        { header: 'EMAIL', get: (r: Record<string, unknown>) => r.email },
      ],
      empty: 'No customers.',
      more: 'customers',
      notes: () => ['after'],
    });
    const hint = 'More customers: add --cursor next\\x1b[2J\\u{202E} (or --all for every page).\n';
    const ids: Record<string, unknown> = {};
    for (const format of ['table', 'json', 'ndjson', 'csv', 'tsv'] as const) {
      const m = memoryIo();
      await renderList(m.io, list(format));
      const text = m.out();
      ids[format] =
        format === 'json'
          ? JSON.parse(text).data.map((r: { id: string }) => r.id)
          : format === 'ndjson'
            ? text
                .trimEnd()
                .split('\n')
                .map((l) => JSON.parse(l).id)
            : format === 'csv'
              ? parseCsv(text)
                  .slice(1)
                  .map((r) => r[0])
              : text
                  .trimEnd()
                  .split('\n')
                  .slice(1)
                  .map((l) => l.split(/\t| +/)[0]);
      // the hint is for people reading a table, csv or tsv; --json's meta holds the cursor as sent
      expect(m.err(), format).toBe(['table', 'csv', 'tsv'].includes(format) ? `${hint}after\n` : 'after\n');
      expect(m.err()).not.toMatch(/[\x1b\u202E]/);
    }
    for (const format of ['json', 'ndjson', 'csv', 'tsv']) expect(ids[format], format).toEqual(ids.table);
    expect(ids.table).toEqual(['cus_1', 'cus_2']);
  });

  it('an empty list: the empty line on stderr for people, the envelope for --json', async () => {
    const empty = (format: 'table' | 'json') =>
      ({ kind: 'list', pages: [{ data: [] }], format, table: [], empty: 'No customers.' }) as const;
    const table = memoryIo();
    await renderList(table.io, empty('table'));
    expect([table.out(), table.err()]).toEqual(['', 'No customers.\n']);
    const json = memoryIo();
    await renderList(json.io, empty('json'));
    expect(JSON.parse(json.out())).toEqual({ data: [], meta: { has_more: false, next_cursor: null } });
    expect(json.err()).toBe('');
  });

  it('an endless stream: items on stdout as they come, notes on stderr between them', async () => {
    async function* events(format: 'text' | 'ndjson'): AsyncGenerator<StreamItem> {
      const line = (r: { id: number }) => `${format === 'text' ? `line ${r.id}` : JSON.stringify(r)}\n`;
      yield { json: { id: 1 }, text: line({ id: 1 }) };
      yield { text: null, notes: [format === 'text' ? 'a gap' : JSON.stringify({ gap: 1 })] };
      yield { json: { id: 2 }, text: line({ id: 2 }) };
    }
    const text = memoryIo();
    await renderStream(text.io, streamResult(events('text')), false);
    expect([text.out(), text.err()]).toEqual(['line 1\nline 2\n', 'a gap\n']);
    const ndjson = memoryIo();
    await renderStream(ndjson.io, streamResult(events('ndjson')), false);
    expect([ndjson.out(), ndjson.err()]).toEqual(['{"id":1}\n{"id":2}\n', '{"gap":1}\n']);
    const json = memoryIo(); // --json: each item's JSON value; a note-only item prints nothing on stdout
    await renderStream(json.io, streamResult(events('ndjson')), true);
    expect([json.out(), json.err()]).toEqual(['{"id":1}\n{"id":2}\n', '{"gap":1}\n']);
  });
});

/**
 * A proxy in front of the mock: `hold(n)` may delay forwarding the n-th list request (it resolves
 * when the request may go), `rewrite` may change a list answer's JSON.
 */
async function startListProxy(
  target: string,
  opts: { hold?: (n: number) => Promise<void>; rewrite?: (body: any) => any },
): Promise<{ baseUrl: string; lists: number; close(): Promise<void> }> {
  const to = new URL(target);
  const state = { lists: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const isList = req.method === 'GET' && /\/customers(\?|$)/.test(req.url ?? '');
      if (isList) await opts.hold?.(++state.lists);
      const up = http.request(
        {
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: to.host },
        },
        (upRes) => {
          const body: Buffer[] = [];
          upRes.on('data', (c: Buffer) => body.push(c));
          upRes.on('end', () => {
            let raw = Buffer.concat(body);
            if (isList && opts.rewrite) raw = Buffer.from(JSON.stringify(opts.rewrite(JSON.parse(raw.toString()))));
            const headers = { ...upRes.headers, 'content-length': String(raw.length) };
            delete headers['transfer-encoding'];
            res.writeHead(upRes.statusCode ?? 502, headers).end(raw);
          });
        },
      );
      up.on('error', () => res.writeHead(502).end());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${to.pathname}`,
    get lists() {
      return state.lists;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('list commands through the built CLI', () => {
  let mock: MockHandle;
  let sb: Sandbox;
  const children: ChildProcessWithoutNullStreams[] = [];
  const proxies: Array<{ close(): Promise<void> }> = [];
  const CUSTOMERS = 3;

  beforeAll(async () => {
    mock = (await startMock({ port: 0, seed: 57, providerLatencyMs: 0 })) as unknown as MockHandle;
    sb = makeSandbox();
    for (let i = 0; i < CUSTOMERS; i++) await createCustomer(mock, { overrides: { email: `list${i}@example.com` } });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const p of proxies) await p.close();
    await mock?.close();
    sb?.cleanup();
  });

  const envFor = (baseUrl: string): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...sb.env, NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !(k in sb.env)) delete env[k];
    return {
      ...env,
      CARDCTL_BASE_URL: baseUrl,
      CARDCTL_API_KEY: mock.keys.test.keyId,
      CARDCTL_API_SECRET: mock.keys.test.secret,
      CARDCTL_MODE: 'test',
    };
  };

  it('--all --ndjson writes each page before it asks for the next', async () => {
    let lines = 0;
    const waiting: Array<{ n: number; resolve: () => void }> = [];
    /** what the CLI had written on stdout when it asked for each page after the first */
    const linesWhenAsked: number[] = [];
    const proxy = await startListProxy(mock.baseUrl, {
      // page n (n > 1) goes to the mock once n - 1 lines are on stdout; a CLI that printed only
      // at the end would never get there (the safety net below lets it finish, and the check fails)
      hold: (n) =>
        n === 1
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              let gone = false;
              const go = () => {
                if (gone) return;
                gone = true;
                clearTimeout(timer);
                linesWhenAsked.push(lines);
                resolve();
              };
              const timer = setTimeout(go, 10_000);
              if (lines >= n - 1) return go();
              waiting.push({ n, resolve: go });
            }),
    });
    proxies.push(proxy);
    const child = spawn(process.execPath, [BIN, 'customers', 'list', '--all', '--per-page', '1', '--ndjson'], {
      cwd: ROOT,
      env: envFor(proxy.baseUrl),
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      lines = out.split('\n').length - 1;
      for (const w of [...waiting]) if (lines >= w.n - 1) waiting.splice(waiting.indexOf(w), 1), w.resolve();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code, err).toBe(0);
    expect(out.trimEnd().split('\n')).toHaveLength(CUSTOMERS);
    // pages 2..N (and the last, empty-cursor check if any) were asked for after the pages before were on stdout
    expect(linesWhenAsked.length).toBeGreaterThanOrEqual(CUSTOMERS - 1);
    linesWhenAsked.forEach((seen, i) => expect(seen, `page ${i + 2}`).toBeGreaterThanOrEqual(i + 1));
  });

  it('the "More customers" hint escapes a cursor with control characters; --json keeps it exact', async () => {
    const cursor = 'evil\x1b]0;owned\x07\u202E';
    const proxy = await startListProxy(mock.baseUrl, {
      rewrite: (body) => ({ ...body, meta: { ...body.meta, has_more: true, next_cursor: cursor } }),
    });
    proxies.push(proxy);
    const run = (args: string[]) => sb.run(args, { env: envFor(proxy.baseUrl) as Record<string, string> });
    for (const output of ['table', 'csv', 'tsv']) {
      const r = await run(['customers', 'list', '--per-page', '1', '--output', output]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        'More customers: add --cursor evil\\x1b]0;owned\\x07\\u{202E} (or --all for every page).\n',
      );
      expect(r.stderr).not.toMatch(/[\x07\x1b\u202E]/);
    }
    const json = await run(['customers', 'list', '--per-page', '1', '--json']);
    expect(JSON.parse(json.stdout).meta.next_cursor).toBe(cursor);
    expect(json.stderr).toBe('');
  });

  it('every format lists the same customers, with --all as page by page', async () => {
    const run = (args: string[]) => sb.run(['customers', 'list', ...args], { env: envFor(mock.baseUrl) as any });
    const json = await run(['--all', '--json']);
    const ids = (JSON.parse(json.stdout).data as Array<{ id: string }>).map((c) => c.id);
    expect(ids).toHaveLength(CUSTOMERS);
    const ndjson = await run(['--all', '--per-page', '1', '--ndjson']);
    expect(
      ndjson.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(ids);
    const csv = await run(['--all', '--per-page', '2', '--output', 'csv', '--columns', 'id']);
    expect(
      parseCsv(csv.stdout)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(ids);
    const tsv = await run(['--all', '--output', 'tsv', '--columns', 'id']);
    expect(tsv.stdout.trimEnd().split('\n').slice(1)).toEqual(ids);
    const table = await run(['--all', '--per-page', '1']);
    expect(
      table.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/ +/)[0]),
    ).toEqual(ids);
    const jq = await run(['--all', '--per-page', '1', '--jq', '.data[].id']);
    expect(jq.stdout.trimEnd().split('\n')).toEqual(ids);
    for (const r of [json, ndjson, csv, tsv, table, jq]) expect(r.code, r.stderr).toBe(0);
  });
});
