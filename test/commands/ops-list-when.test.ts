// `ops list --since/--until` take a duration or an ISO 8601 date and nothing else (exit 2 with a
// clear message, nothing listed): Date.parse alone read `--since 90` (meant: 90 days) as 1990 and
// `--since 1` as 2001, and a date that does not exist (2026-02-30) as another day, listing the wrong
// operations without a word. A window that cannot hold anything is refused too.
import { afterAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { approvedCustomer, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

const sb = makeSandbox();
afterAll(() => sb.cleanup());

describe('ops list --since/--until', () => {
  it.each([
    [
      ['--since', '90'],
      '--since "90" has no unit: a duration is a number and one of s, m, h, d, w (--since 90d: 90 days)',
    ],
    [['--until', '1'], '--until "1" has no unit'],
    [['--since', '2026-02-30'], '--since "2026-02-30" is neither a duration nor a date'],
    [['--since', 'Nov 26'], '--since "Nov 26" is neither a duration nor a date'],
    [['--since', 'foo 1'], '--since "foo 1" is neither a duration nor a date'],
    [['--until', '2026-11-26T24:30:00Z'], 'is neither a duration nor a date'],
    [['--since', '3d', '--until', '5d'], '--since "3d" is after --until "5d": no operation can match'],
  ])('%j is exit 2: %s', async (args, message) => {
    const r = await sb.run(['ops', 'list', ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
    const json = await sb.run(['ops', 'list', ...args, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.message).toContain(message);
  });

  it.each([['2d'], ['2026-11-24'], ['2026-11-24T10:00:00Z'], ['2026-11-24T10:00:00+05:30'], ['2024-02-29']])(
    '--since %s is accepted',
    async (since) => {
      const r = await sb.run(['ops', 'list', '--since', since, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).data).toEqual([]);
      const text = await sb.run(['ops', 'list', '--since', since]);
      expect(text.stderr).toContain('No operation matches.');
    },
  );
});

describe('ops compact --older-than', () => {
  it.each([['0'], ['soon'], ['36501']])(
    '%s is exit 2 naming what the flag takes (days), never advising "off", which it refuses',
    async (value) => {
      const r = await sb.run(['ops', 'compact', '--older-than', value]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `--older-than must be a number of days from 1 to 36500 (such as 90 or 90d); got "${value}".`,
      );
      expect(r.stderr).toContain('For example --older-than 30');
      expect(r.stderr).not.toMatch(/\boff\b/);
    },
  );
});

type CardRun = { own: Sandbox; env: Record<string, string>; card: string };

/** A mock and a sandbox of their own and a card issued through the CLI; both are stopped after `f`, also on failure. */
async function withIssuedCard(seed: number, amount: number, f: (c: CardRun) => Promise<void>): Promise<void> {
  const mock = (await startMock({ port: 0, seed, providerLatencyMs: 0 })) as unknown as MockHandle;
  const own = makeSandbox();
  try {
    const env = {
      CARDCTL_BASE_URL: mock.baseUrl,
      CARDCTL_API_KEY: mock.keys.test.keyId,
      CARDCTL_API_SECRET: mock.keys.test.secret,
    };
    const customer = (await approvedCustomer(mock)).id as string;
    const issued = await own.run(
      ['cards', 'issue', '--customer', customer, '--amount', String(amount), '--jq', '.id'],
      {
        env,
      },
    );
    expect(issued.code, issued.stderr).toBe(0);
    await f({ own, env, card: issued.stdout.trim() });
  } finally {
    own.cleanup();
    await mock.close();
  }
}

describe('ops list --card', () => {
  it('finds the operations of a card given in lower case, as cards get takes it', () =>
    withIssuedCard(12, 1000, async ({ own, card }) => {
      const upper = JSON.parse((await own.run(['ops', 'list', '--card', card, '--json'])).stdout).data as unknown[];
      expect(upper).toHaveLength(1);
      const lower = await own.run(['ops', 'list', '--card', card.toLowerCase(), '--json']);
      expect(lower.code, lower.stderr).toBe(0);
      expect(JSON.parse(lower.stdout).data).toEqual(upper);
    }));
});

describe('ops list shows the amount', () => {
  it('an AMOUNT_MINOR column: the initial load of an issue, the amount of a recharge, nothing for a terminate', () =>
    withIssuedCard(29, 1234, async ({ own, env, card }) => {
      expect((await own.run(['cards', 'recharge', card, '--amount', '567'], { env })).code).toBe(0);
      expect((await own.run(['cards', 'terminate', card, '--yes'], { env })).code).toBeLessThan(8);
      const table = await own.run(['ops', 'list', '--card', card]);
      expect(table.code, table.stderr).toBe(0);
      const [header, ...rows] = table.stdout.trimEnd().split('\n');
      expect(header).toMatch(/\bOPERATION\s+AMOUNT_MINOR\s+STATUS\b/);
      const amountOf = (path: RegExp): string => {
        const row = rows.find((r) => path.test(r));
        expect(row, table.stdout).toBeDefined();
        const start = header!.indexOf('AMOUNT_MINOR');
        return row!.slice(start, header!.indexOf('STATUS')).trim();
      };
      expect(amountOf(/POST \/api\/v1\/cards\s/)).toBe('1234');
      expect(amountOf(/\/recharge\s/)).toBe('567');
      expect(amountOf(/\/terminate\s/)).toBe('-'); // an empty cell
    }));
});
