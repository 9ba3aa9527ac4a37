// Completion of values (issue 11, item 6), through the generated scripts in real bash, zsh and
// fish: profile names after -p/--profile and as the argument of `profiles use|show|remove` (read
// from the store when completing), event types after `webhooks trigger`, operations and kinds
// after `mock faults add`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox } from '../helpers/cli.js';
import { completers, SHELLS } from '../helpers/shells.js';
import { needs } from '../helpers/programs.js';

const sb = makeSandbox();
const complete = completers(sb);

beforeAll(async () => {
  for (const name of ['ci', 'prod-eu']) {
    const r = await sb.run(
      ['profiles', 'add', name, '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--mode', 'test', '--secret-stdin'],
      { input: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=\n' },
    );
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(() => sb.cleanup());

describe.each(SHELLS)('%s completes values', (shell) => {
  const offer = (words: string[]) => complete[shell](words);

  it.runIf(needs(shell))('profile names after -p and --profile, and as the argument of profiles use', () => {
    expect(offer(['cardctl', 'cards', 'get', '-p', '']).sort()).toEqual(['ci', 'prod-eu']);
    expect(offer(['cardctl', 'mock', 'state', '--profile', 'pr'])).toEqual(['prod-eu']);
    expect(offer(['cardctl', 'profiles', 'use', '']).sort()).toEqual(['ci', 'prod-eu']);
  });

  it.runIf(needs(shell))('event types after webhooks trigger', () => {
    const offered = offer(['cardctl', 'webhooks', 'trigger', '']);
    expect(offered).toContain('card.issued');
    expect(offered).toContain('customer.kyc.rejected');
    expect(offered).toHaveLength(12);
    expect(offer(['cardctl', 'webhooks', 'trigger', 'withdrawal.c']).sort()).toEqual([
      'withdrawal.cancelled',
      'withdrawal.completed',
    ]);
  });

  it.runIf(needs(shell))('operations and kinds after mock faults add', () => {
    const ops = offer(['cardctl', 'mock', 'faults', 'add', '--operation', '']);
    for (const op of ['issue', 'recharge', 'terminate', 'any', 'customers.get', 'cards.freeze'])
      expect(ops).toContain(op);
    expect(offer(['cardctl', 'mock', 'faults', 'add', '--operation', 'issue', '--kind', '']).sort()).toEqual([
      '500',
      '500_after_commit',
      '503',
      'async_202',
      'drop',
      'issue_failed',
      'slow',
    ]);
  });
});
