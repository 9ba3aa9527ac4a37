// `smoke` where GitHub Actions runs it (GITHUB_ACTIONS=true): a failed case is an `::error`
// annotation on stderr (also with --quiet), and a summary table is appended to the file
// $GITHUB_STEP_SUMMARY names, as the runner gives each step; elsewhere neither. The built CLI
// against the mock on port 0 (a revoked key: the setup fails), and `smoke --mock` (all pass).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { ctl, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let revoked: { key_id: string; secret: string };

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 9, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  revoked = await ctl<{ key_id: string; secret: string }>(mock, 'POST', '/keys', { mode: 'test' });
  await ctl(mock, 'POST', `/keys/${revoked.key_id}/revoke`);
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

const tableRows = (md: string): string[] => md.split('\n').filter((l) => /^\| (?!case |---)/.test(l));

describe('smoke under GitHub Actions', () => {
  it('a failure: one ::error annotation (with --quiet too), and the summary table, failures first, appended', async () => {
    const summary = join(sb.dir, 'step-summary.md');
    writeFileSync(summary, '## an earlier step\n');
    const r = await sb.run(['smoke', '-q'], {
      env: {
        CARDCTL_BASE_URL: mock.baseUrl,
        CARDCTL_API_KEY: revoked.key_id,
        CARDCTL_API_SECRET: revoked.secret,
        CARDCTL_MODE: 'test',
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: summary,
      },
    });
    expect(r.code).toBe(3);
    const annotations = r.stderr.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error title=cardctl smoke%3A setup%3A key::.*invalid_api_key/);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('## an earlier step\n')).toBe(true); // appended, as the runner expects
    expect(md).toMatch(/^### ❌ cardctl smoke: \d+ cases, \d+ passed, 1 failed \(\d+\.\d s\)$/m);
    expect(md).toContain('| case | result | expected | got | ms |');
    const rows = tableRows(md);
    expect(rows[0]).toMatch(/^\| setup: key \| ❌ failed \| the key is accepted .*invalid_api_key/);
    expect(rows.filter((l) => l.includes('❌ failed'))).toHaveLength(1);
    const total = Number(/: (\d+) cases/.exec(md)![1]);
    expect(rows).toHaveLength(total);
    expect(md).not.toContain(revoked.secret);
  });

  it('all passed (smoke --mock): no annotation, a green summary of every case', async () => {
    const summary = join(sb.dir, 'pass-summary.md');
    const r = await sb.run(['smoke', '--mock'], { env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/^::error/m);
    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/^### ✅ cardctl smoke: 22 cases, 22 passed, 0 failed/m);
    expect(tableRows(md)).toHaveLength(22);
  });

  it('elsewhere: no annotation and no summary written, even with GITHUB_STEP_SUMMARY set', async () => {
    const summary = join(sb.dir, 'not-actions.md');
    const r = await sb.run(['smoke', '--mock'], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(summary)).toBe(false);
    expect(r.stderr).not.toMatch(/::error/);
  });

  it('a summary file that cannot be written is said, and the run ends as it would', async () => {
    const r = await sb.run(['smoke', '--mock'], {
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(sb.dir, 'no-such-folder', 'summary.md') },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Error: cannot append the summary to GITHUB_STEP_SUMMARY: ENOENT/m);
  });
});
