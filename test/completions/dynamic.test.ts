// Completion of values (issue 11, item 6), through the generated bash script in a real bash:
// profile names after -p/--profile (read from the store when completing), event types after
// `webhooks trigger`, operations and kinds after `mock faults add`.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, makeSandbox, ROOT } from '../helpers/cli.js';

const sb = makeSandbox();
const shimDir = join(sb.dir, 'bin');

beforeAll(async () => {
  // `cardctl` on PATH, as after `npm install -g .`
  mkdirSync(shimDir, { recursive: true });
  writeFileSync(join(shimDir, 'cardctl'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(shimDir, 'cardctl'), 0o755);
  for (const name of ['ci', 'prod-eu']) {
    const r = await sb.run(['profiles', 'add', name, '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--mode', 'test', '--secret-stdin'], { input: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=\n' });
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(() => sb.cleanup());

/** What bash offers for the words typed so far (the last one may be partial). */
function bashComplete(words: string[]): string[] {
  const script = `source ${JSON.stringify(join(ROOT, 'completions', 'cardctl.bash'))}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_cardctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, ...sb.env, PATH: `${shimDir}:${process.env.PATH}` }, timeout: 20_000 });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('bash completes values', () => {
  it('profile names after -p and --profile', () => {
    expect(bashComplete(['cardctl', 'cards', 'get', '-p', '']).sort()).toEqual(['ci', 'prod-eu']);
    expect(bashComplete(['cardctl', 'mock', 'state', '--profile', 'pr'])).toEqual(['prod-eu']);
  });

  it('event types after webhooks trigger', () => {
    const offered = bashComplete(['cardctl', 'webhooks', 'trigger', '']);
    expect(offered).toContain('card.issued');
    expect(offered).toContain('customer.kyc.rejected');
    expect(offered).toHaveLength(12);
    expect(bashComplete(['cardctl', 'webhooks', 'trigger', 'withdrawal.c'])).toEqual(['withdrawal.completed', 'withdrawal.cancelled']);
  });

  it('operations and kinds after mock faults add', () => {
    const ops = bashComplete(['cardctl', 'mock', 'faults', 'add', '--operation', '']);
    for (const op of ['issue', 'recharge', 'terminate', 'any', 'customers.get', 'cards.freeze']) expect(ops).toContain(op);
    expect(bashComplete(['cardctl', 'mock', 'faults', 'add', '--operation', 'issue', '--kind', '']).sort()).toEqual(['500', '500_after_commit', '503', 'async_202', 'drop', 'issue_failed', 'slow']);
  });
});
