// The money journal's guarantees under attack (issue 17, Targets and item 8): the built CLI
// against the embedded mock, real files. Each case is a way a key first sent days ago could be
// charged again, or a damaged record skipped without a word: a key the HTTP layer spells
// otherwise, a base URL spelled otherwise, a key a batch row shares with a single command,
// damaged bytes in the files the 24-hour rule does not read, a file replaced by a folder.
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeCard, advance, fault, wallet } from '../helpers/api.js';
import type { CliResult, Sandbox } from '../helpers/cli.js';
import { legacyJournalText, rewriteJournal } from '../helpers/journal.js';
import { journalSandboxes, json, state } from '../helpers/journal-sandbox.js';

const HOUR = 3_600_000;
const j = journalSandboxes({ seed: 71, cliTimeoutMs: 60_000 });
const sandbox = j.sandbox;
const balance = async () => (await wallet(j.mock, 'test')).balance_minor;

/** Two days pass: every journal entry's time moves back 48 h, and the mock forgets every key (sent again, a key is a new charge). */
async function twoDaysPass(s: Sandbox): Promise<void> {
  rewriteJournal(state(s), (r) => ({ ...r, time: new Date(Date.parse(r.time as string) - 48 * HOUR).toISOString() }));
  await advance(j.mock, 49 * 3600);
}

describe('a key first sent two days ago is never sent again, however it is spelled', () => {
  it('the same --idempotency-key with a space before or after it (HTTP drops it: the API sees the same key) is refused, nothing charged', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const first = await s.cli([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '9',
      '--idempotency-key',
      'spaced-key',
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    await twoDaysPass(s);
    const before = await balance();
    for (const spelled of ['spaced-key ', ' spaced-key']) {
      const again = await s.cli([
        'cards',
        'recharge',
        card.id,
        '--amount',
        '9',
        '--idempotency-key',
        spelled,
        '--json',
      ]);
      expect(again.code, `${JSON.stringify(spelled)}: ${again.stdout}${again.stderr}`).toBe(2);
      expect(json(again).error.message).toMatch(/space/);
    }
    expect(await balance()).toBe(before);
  });
  it('the same recharge through the base URL spelled otherwise (scheme in capitals, one or two trailing slashes) is reported from the journal', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const recharge = ['cards', 'recharge', card.id, '--amount', '6', '--idempotency-key', 'base-spelled', '--json'];
    expect((await s.cli(recharge)).code).toBe(0);
    await twoDaysPass(s);
    const before = await balance();
    const u = new URL(j.mock.baseUrl);
    for (const spelled of [`HTTP://${u.host}${u.pathname}/`, `http://${u.host}${u.pathname}//`]) {
      const again = await s.cli(recharge, { CARDCTL_BASE_URL: spelled });
      expect(again.code, `${spelled}: ${again.stdout}${again.stderr}`).toBe(0);
      expect(json(again)).toMatchObject({ from_journal: true, outcome: 'succeeded', why: 'key_forgotten' });
    }
    expect(await balance()).toBe(before);
  });

  it("a --batch row whose key (the version before's PREFIX-ROW) a single command sent two days ago: the same row is reported from the journal, nothing charged; another amount is another request, sent once under its own key", async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    expect((await s.cli(['cards', 'recharge', card.id, '--amount', '8', '--idempotency-key', 'shared-1'])).code).toBe(
      0,
    );
    await twoDaysPass(s);
    const before = await balance();
    writeFileSync(join(s.dir, 'same.csv'), `card,amount\n${card.id},8\n`);
    const same = await s.cli([
      'cards',
      'recharge',
      '--batch',
      join(s.dir, 'same.csv'),
      '--idempotency-prefix',
      'shared',
      '--json',
    ]);
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout.trim())).toMatchObject({ row: 1, status: 'ok', from_journal: true });
    writeFileSync(join(s.dir, 'other.csv'), `card,amount\n${card.id},9\n`);
    expect(await balance()).toBe(before);
    const other = await s.cli([
      'cards',
      'recharge',
      '--batch',
      join(s.dir, 'other.csv'),
      '--idempotency-prefix',
      'shared',
      '--json',
    ]);
    expect(other.code, other.stdout + other.stderr).toBe(0);
    const row = JSON.parse(other.stdout.trim());
    expect(row).toMatchObject({ row: 1, status: 'ok', from_journal: false });
    expect(row.idempotency_key).toMatch(/^shared-[0-9a-f]{16}-1$/);
    expect(await balance()).toBe(before - 9);
  });

  it('an unknown recharge a person resolved with `ops resolve --note`: the same command two days later reports that, sends nothing', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    await fault(j.mock, 'recharge', '500_after_commit');
    const recharge = [
      'cards',
      'recharge',
      card.id,
      '--amount',
      '3',
      '--idempotency-key',
      'resolved-by-hand',
      '--retries',
      '0',
      '--json',
    ];
    expect((await s.cli(recharge)).code).toBe(7);
    const resolved = await s.cli([
      'ops',
      'resolve',
      'resolved-by-hand',
      '--outcome',
      'succeeded',
      '--note',
      'seen in the portal \u00e9 "quoted"',
    ]);
    expect(resolved.code, resolved.stderr).toBe(0);
    await twoDaysPass(s);
    const before = await balance();
    const again = await s.cli(recharge);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({
      from_journal: true,
      outcome: 'succeeded',
      recorded_by: 'ops resolve',
      note: 'seen in the portal \u00e9 "quoted"',
    });
    expect(await balance()).toBe(before);
  });
});
