// `cardctl webhooks test URL` through the built CLI, against receivers in this test suite: one
// correct, and several wrong in known ways. Each must be graded as what it is: the correct one
// passes every case (exit 0); each wrong one fails exactly the cases its mistake lets through
// (exit 3).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/resources.js';
import { makeSandbox, type CliOptions, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { all, parseXml } from '../helpers/junit.js';
import { startReceiver, type Receiver, type ReceiverKind } from '../helpers/webhook-receivers.js';

const SECRET = 'whsec_grader_test_4b1d9e7f0a2c6e8b3d5f7a9c1e3b5d7f';

interface Report {
  ok: boolean;
  passed: number;
  failed: number;
  info: number;
  cases: Array<{
    name: string;
    group: string;
    status: string;
    expected: string;
    got: string;
    time_ms: number;
    delivery_id: string;
  }>;
}

let sb: Sandbox;
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);
const receivers: Receiver[] = [];

beforeAll(() => {
  sb = makeSandbox();
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  sb?.cleanup();
});

async function receiver(kind: ReceiverKind, opts?: { delayMs?: number }): Promise<Receiver> {
  const r = await startReceiver(kind, SECRET, opts);
  receivers.push(r);
  return r;
}

async function grade(
  url: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; report: Report; stderr: string; stdout: string }> {
  const run = await runIn(['webhooks', 'test', url, '--json', ...extra], {
    env: { CARDCTL_WEBHOOK_SECRET: SECRET, ...env },
  });
  let report: Report;
  try {
    report = JSON.parse(run.stdout) as Report;
  } catch {
    throw new Error(`not one JSON value (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
  return { code: run.code, report, stderr: run.stderr, stdout: run.stdout };
}

const failedNames = (r: Report): string[] =>
  r.cases
    .filter((c) => c.status === 'failed')
    .map((c) => c.name)
    .sort();

const ACCEPT = [
  ...EVENT_TYPES.map((t) => `event ${t}`),
  'rotation: two v1, one valid',
  'header: unknown items, extra spaces',
];
const REFUSE = [
  'body changed by one byte',
  'signed with another secret',
  't 301 s in the past',
  't 301 s in the future',
  'no signature header',
  'malformed header',
  'body re-serialized: pretty-printed',
  'body re-serialized: keys reordered',
  'uppercase hex',
];

describe('webhooks test', () => {
  it('passes a correct receiver on every case, and reports the duplicate delivery as information', async () => {
    const r = await receiver('correct');
    const { code, report } = await grade(r.url);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.cases.filter((c) => c.group === 'accept').map((c) => c.name)).toEqual(ACCEPT);
    expect(report.cases.filter((c) => c.group === 'refuse').map((c) => c.name)).toEqual(REFUSE);
    expect(failedNames(report)).toEqual([]);
    for (const c of report.cases.filter((x) => x.group === 'accept')) expect(c.got).toBe('200');
    for (const c of report.cases.filter((x) => x.group === 'refuse')) expect(c.got).toBe('400');
    const dup = report.cases.find((c) => c.group === 'info')!;
    expect(dup).toMatchObject({ name: 'same delivery id twice', status: 'info', got: '200, then 200' });
    // every delivery reached the receiver: one per case, two for the duplicate, which share an id
    expect(r.seen.length).toBe(ACCEPT.length + REFUSE.length + 2);
    expect(r.seen.filter((id) => id === dup.delivery_id).length).toBe(2);
    expect(new Set(r.seen).size).toBe(ACCEPT.length + REFUSE.length + 1);
  });

  it('a receiver that is down: every case says "connection refused", in the words the mock\'s deliveries use (one table, src/errno-words.ts)', async () => {
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/hooks`;
    await new Promise<void>((r) => gone.close(() => r()));
    const { code, report } = await grade(url);
    expect(code).not.toBe(0);
    expect(report.cases.length).toBeGreaterThan(0);
    // the mock's delivery log says the same words for the same failure (test/mock/impl-webhooks.test.ts)
    for (const c of report.cases) expect(c.got).toContain('connection refused');
  });

  it('fails a receiver that verifies nothing on every must-be-refused case, exit 3', async () => {
    const { code, report } = await grade((await receiver('no-verification')).url);
    expect(code).toBe(3);
    expect(report.ok).toBe(false);
    expect(failedNames(report)).toEqual([...REFUSE].sort());
    expect(report.cases.find((c) => c.name === 'no signature header')).toMatchObject({ status: 'failed', got: '200' });
  });

  it('fails a receiver that verifies a re-serialized body on the pretty-printed body', async () => {
    const { code, report } = await grade((await receiver('reserialized')).url);
    expect(code).toBe(3);
    expect(failedNames(report)).toEqual(['body re-serialized: pretty-printed']);
  });

  it('fails a receiver without timestamp tolerance on the stale and the future t', async () => {
    const { code, report } = await grade((await receiver('no-tolerance')).url);
    expect(code).toBe(3);
    expect(failedNames(report)).toEqual(['t 301 s in the future', 't 301 s in the past']);
  });

  it('fails every case of a receiver slower than --timeout, saying it did not answer in time', async () => {
    const { code, report } = await grade((await receiver('slow', { delayMs: 2_000 })).url, ['--timeout', '0.2']);
    expect(code).toBe(3);
    const graded = report.cases.filter((c) => c.group !== 'info');
    expect(graded.every((c) => c.status === 'failed' && c.got === 'no answer within 0.2 s')).toBe(true);
  });

  it('counts a 3xx as a failed delivery: not followed', async () => {
    const { code, report } = await grade((await receiver('redirect')).url);
    expect(code).toBe(3);
    expect(failedNames(report)).toEqual([...ACCEPT].sort());
    expect(report.cases.find((c) => c.name === 'event card.issued')?.got).toBe('302 (redirect not followed)');
  });

  it('writes JUnit XML with one testcase per case and a failure for each failed case', async () => {
    const file = join(sb.dir, 'reports', 'webhooks.xml');
    const run = await runIn(['webhooks', 'test', (await receiver('no-tolerance')).url, '--junit', file], {
      env: { CARDCTL_WEBHOOK_SECRET: SECRET, GITHUB_ACTIONS: 'true' },
    });
    expect(run.code).toBe(3);
    const root = parseXml(readFileSync(file, 'utf8'));
    const [suite] = all(root, 'testsuite');
    expect(suite!.attrs).toMatchObject({
      name: 'cardctl webhooks test',
      tests: '24',
      failures: '2',
      errors: '0',
      skipped: '0',
    });
    const cases = all(root, 'testcase');
    expect(cases).toHaveLength(24);
    for (const c of cases) expect(c.attrs.time).toMatch(/^\d+\.\d{3}$/);
    const failed = cases.filter((c) => all(c, 'failure').length > 0);
    expect(failed.map((c) => c.attrs.name).sort()).toEqual(['t 301 s in the future', 't 301 s in the past']);
    for (const c of failed) {
      expect(c.attrs.classname).toBe('cardctl.webhooks.test.refuse');
      const [f] = all(c, 'failure');
      expect(f!.attrs.message).toBe('expected refused: any non-2xx within 15 s, got 200');
      expect(f!.text).toMatch(
        /^expected: refused: any non-2xx within 15 s\ngot: 200\n\na correct receiver: .*\nX-Service-Delivery: [0-9A-Z]{26}$/,
      );
    }
    // the readable report on stdout (naming where the secret came from, never the secret), one GitHub annotation per failure on stderr
    expect(run.stdout.split('\n')[0]).toMatch(
      /^grading http:\/\/127\.0\.0\.1:\d+\/webhooks: deliveries signed with the webhook secret from CARDCTL_WEBHOOK_SECRET, 15 s to answer each$/,
    );
    expect(run.stdout).toMatch(/✗ refuse: t 301 s in the past\s+\d+ ms/);
    expect(run.stdout).toMatch(/24 cases: 21 passed, 2 failed, 1 info/);
    const annotations = run.stderr.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations).toHaveLength(2);
    for (const a of annotations)
      expect(a).toMatch(
        /^::error title=cardctl webhooks test%3A refuse%3A t 301 s in the (past|future)::refuse: t 301 s in the (past|future): expected refused: any non-2xx within 15 s, got 200%0Aa correct receiver: /,
      );
  });

  it('refuses http to a host that is not loopback, an unusable URL and a bad --timeout, before sending anything (exit 2)', async () => {
    const env = { CARDCTL_WEBHOOK_SECRET: SECRET };
    const plain = await runIn(['webhooks', 'test', 'http://example.com/webhooks'], { env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/http is allowed only for a loopback host.*\n.*https:\/\/example\.com\/webhooks/);
    expect((await runIn(['webhooks', 'test', 'not a url'], { env })).code).toBe(2);
    expect((await runIn(['webhooks', 'test', 'https://user:pw@example.com/'], { env })).code).toBe(2);
    const r = await receiver('correct');
    for (const t of ['0', '16', 'soon']) {
      const run = await runIn(['webhooks', 'test', r.url, '--timeout', t], { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--timeout must be more than 0 and at most 15 seconds/);
    }
    expect(r.seen).toEqual([]);
  });

  it('needs the webhook secret from the environment or a profile, never a flag', async () => {
    const r = await receiver('correct');
    const none = await runIn(['webhooks', 'test', r.url]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no webhook secret/);
    expect((await runIn(['webhooks', 'test', r.url, '--secret', SECRET])).code).toBe(2);
    expect(r.seen).toEqual([]);
  });
});
