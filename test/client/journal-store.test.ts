// The journal folder as users meet it (issue 17): the built CLI against the embedded mock.
// `ops list` newest first with its filters; an old operations.ndjson taken over with every
// record (also when the takeover is interrupted); damaged bytes and records of the wrong shape
// reported, never an internal error, and never a second charge of an old operation.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activeCard, advance, fault, wallet } from '../helpers/api.js';
import type { CliResult } from '../helpers/cli.js';
import { filesUnder, legacyJournalText, rewriteJournal } from '../helpers/journal.js';
import { journalSandboxes, json, state } from '../helpers/journal-sandbox.js';

const HOUR = 3_600_000;
const j = journalSandboxes({ seed: 17, cliTimeoutMs: 60_000 });
const sandbox = j.sandbox;
const ndjsonLines = (r: CliResult) =>
  r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; idempotency_key: string; outcome: string; time: string });

/** A sandbox holding `ops` generated operations in the old format (taken over by its first command). */
function withOldJournal(ops: number, extra: Partial<Parameters<typeof legacyJournalText>[0]> = {}) {
  const s = sandbox();
  mkdirSync(state(s), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(state(s), 'operations.ndjson'),
    legacyJournalText({ ops, baseUrl: j.mock.baseUrl, keyId: j.mock.keys.test.keyId, ...extra }),
    { mode: 0o600 },
  );
  return s;
}

describe('ops list', () => {
  it('newest first, 20 by default with a line saying how many more; --limit, --all, --since/--until, --card, --key, --unresolved, --ndjson; ops show by id, prefix or key', async () => {
    const s = withOldJournal(50, { stepMs: HOUR, unknownEvery: 10 });
    const first = await s.cli(['ops', 'list', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const page = json(first).data as Array<{ idempotency_key: string }>;
    expect(page.map((e) => e.idempotency_key)).toEqual(Array.from({ length: 20 }, (_, i) => `gen-${49 - i}`));
    expect(first.stderr).toContain('30 more operations: --limit N or --all shows them.');
    expect(existsSync(join(state(s), 'operations.ndjson'))).toBe(false); // taken over, every record kept:
    const all = ndjsonLines(await s.cli(['ops', 'list', '--all', '--ndjson']));
    expect(all.map((e) => e.idempotency_key)).toEqual(Array.from({ length: 50 }, (_, i) => `gen-${49 - i}`));
    expect(json(await s.cli(['ops', 'list', '--limit', '3', '--json'])).data.length).toBe(3);
    const recent = json(await s.cli(['ops', 'list', '--since', '150m', '--json'])).data as Array<{
      idempotency_key: string;
    }>;
    expect(recent.map((e) => e.idempotency_key)).toEqual(['gen-49', 'gen-48', 'gen-47']);
    const older = json(
      await s.cli([
        'ops',
        'list',
        '--until',
        '47h',
        '--since',
        new Date(Date.now() - 49.5 * HOUR).toISOString(),
        '--json',
      ]),
    ).data as Array<{ idempotency_key: string }>;
    expect(older.map((e) => e.idempotency_key)).toEqual(['gen-2', 'gen-1', 'gen-0']);
    const unknown = json(await s.cli(['ops', 'list', '--unresolved', '--all', '--json'])).data as Array<{
      idempotency_key: string;
    }>;
    expect(unknown.map((e) => e.idempotency_key)).toEqual(['gen-40', 'gen-30', 'gen-20', 'gen-10', 'gen-0']);
    expect((json(await s.cli(['ops', 'list', '--key', 'gen-7', '--json'])).data as unknown[]).length).toBe(1);
    expect(
      (json(await s.cli(['ops', 'list', '--card', '01JD2QA1B2C3D4E5F6G7H8J9KM', '--all', '--json'])).data as unknown[])
        .length,
    ).toBe(50);
    expect(
      (json(await s.cli(['ops', 'list', '--card', '01JD2QZZZZZZZZZZZZZZZZZZZZ', '--json'])).data as unknown[]).length,
    ).toBe(0);
    const bad = await s.cli(['ops', 'list', '--since', 'yesterday-ish']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('neither a duration nor a date');

    const target = all[10]!;
    for (const ref of [target.id, target.id.slice(0, 14), target.idempotency_key]) {
      const shown = await s.cli(['ops', 'show', ref, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(json(shown).id).toBe(target.id);
    }
  });
});

describe('the 24-hour rule in the middle of a large journal', () => {
  it('two days later, between 20,000 other operations: the resolved recharge is reported from the journal, the unknown one exits 7; nothing is sent', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const resolved = ['cards', 'recharge', card.id, '--amount', '3', '--idempotency-key', 'mid-resolved', '--json'];
    const unknown = [
      'cards',
      'recharge',
      card.id,
      '--amount',
      '4',
      '--idempotency-key',
      'mid-unknown',
      '--retries',
      '0',
      '--json',
    ];
    expect((await s.cli(resolved)).code).toBe(0);
    await fault(j.mock, 'recharge', '500_after_commit');
    expect((await s.cli(unknown)).code).toBe(7);
    rewriteJournal(state(s), (r) => ({ ...r, time: new Date(Date.parse(r.time as string) - 48 * HOUR).toISOString() }));
    const ours = readFileSync(join(state(s), 'operations.ndjson'), 'utf8');
    // 20,000 operations over the last four days, ours in the middle of the file and of its time
    const others = legacyJournalText({
      ops: 20_000,
      baseUrl: j.mock.baseUrl,
      keyId: j.mock.keys.test.keyId,
      stepMs: 17_280,
    })
      .split('\n')
      .filter(Boolean);
    const half = others.length / 2;
    writeFileSync(
      join(state(s), 'operations.ndjson'),
      others.slice(0, half).join('\n') + '\n' + ours + others.slice(half).join('\n') + '\n',
    );
    await advance(j.mock, 49 * 3600); // the API has forgotten both keys: sent again, either would be a new charge
    const before = (await wallet(j.mock, 'test')).balance_minor;

    const fromJournal = await s.cli(resolved);
    expect(fromJournal.code, fromJournal.stderr).toBe(0);
    expect(json(fromJournal)).toMatchObject({
      from_journal: true,
      outcome: 'succeeded',
      idempotency_key: 'mid-resolved',
    });
    const stillUnknown = await s.cli(unknown);
    expect(stillUnknown.code, stillUnknown.stderr).toBe(7);
    expect(json(stillUnknown).error).toMatchObject({
      code: 'key_forgotten',
      idempotency_key: 'mid-unknown',
      data: { from_journal: true, outcome: 'unknown' },
    });
    expect((await wallet(j.mock, 'test')).balance_minor).toBe(before);
    expect((await s.cli(['ops', 'list', '--unresolved', '--all', '--json'])).stdout).toContain('mid-unknown');
  }, 120_000);
});
