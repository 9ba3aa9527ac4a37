// Retention (docs/journal.md "Retention"): resolved operations older than the retention are
// reduced to their key, identity and outcome; unknown ones are kept whole; the 24-hour rule is as
// exact after compaction as before; money commands writing while a compaction runs lose nothing.
// The built CLI against the embedded mock.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { activeCard, advance, fault, wallet } from '../helpers/api.js';
import { filesUnder, journalDb, legacyJournalText, rewriteJournal } from '../helpers/journal.js';
import { journalSandboxes, json, state } from '../helpers/journal-sandbox.js';

const DAY = 86_400_000;
const j = journalSandboxes({ seed: 21, cliTimeoutMs: 90_000 });
const sandbox = j.sandbox;

/** Polls until `done` or 30 s. */
async function until(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 300 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
  return done();
}

/** A value of the journal's meta table (read as the sqlite3 shell would), or undefined. */
function meta(cardctlState: string, name: string): string | undefined {
  try {
    const db = new DatabaseSync(journalDb(cardctlState), { readOnly: true });
    try {
      return (db.prepare('SELECT value FROM meta WHERE name = ?').get(name) as { value: string } | undefined)?.value;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

describe('ops compact', () => {
  it('resolved operations past the retention keep key, identity and outcome; unknown ones stay whole; the 24-hour rule still holds; nothing is sent', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const resolved = ['cards', 'recharge', card.id, '--amount', '3', '--idempotency-key', 'old-resolved', '--json'];
    const unknown = [
      'cards',
      'recharge',
      card.id,
      '--amount',
      '4',
      '--idempotency-key',
      'old-unknown',
      '--retries',
      '0',
      '--json',
    ];
    const sameKeyOtherAmount = [
      'cards',
      'recharge',
      card.id,
      '--amount',
      '9',
      '--idempotency-key',
      'old-resolved',
      '--json',
    ];
    expect((await s.cli(resolved)).code).toBe(0);
    await fault(j.mock, 'recharge', '500_after_commit');
    expect((await s.cli(unknown)).code).toBe(7);
    // 120 days pass, among 400 other operations over 200 days (every 10th unknown)
    rewriteJournal(state(s), (r) => ({ ...r, time: new Date(Date.parse(r.time as string) - 120 * DAY).toISOString() }));
    const ours = readFileSync(join(state(s), 'operations.ndjson'), 'utf8');
    const newestMs = Date.now();
    const others = legacyJournalText({
      ops: 400,
      baseUrl: j.mock.baseUrl,
      keyId: j.mock.keys.test.keyId,
      stepMs: DAY / 2,
      unknownEvery: 10,
      newestMs,
    });
    writeFileSync(join(state(s), 'operations.ndjson'), others + ours);
    await advance(j.mock, 49 * 3600); // the API has forgotten both keys: sent again, either would be a new charge
    const before = (await wallet(j.mock, 'test')).balance_minor;

    const r = await s.cli(['ops', 'compact', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = json(r);
    // operations first sent before the cutoff, 90 days ago, are compacted: of 400 ops over 200 days, those (1 in 10 of
    // them unknown, kept whole), and ours (120 days old)
    const cutoff = Date.parse(report.cutoff);
    const times = Array.from({ length: 400 }, (_, i) => newestMs - (399 - i) * (DAY / 2));
    const due = times.map((t, i) => ({ t, i })).filter((o) => o.t < cutoff);
    expect(report.compacted + report.kept_unknown).toBe(due.length + 2);
    expect(report.kept_unknown).toBe(due.filter((o) => o.i % 10 === 0).length + 1);

    const shown = json(await s.cli(['ops', 'show', 'old-resolved', '--json']));
    expect(shown).toMatchObject({
      idempotency_key: 'old-resolved',
      outcome: 'resolved',
      status: 200,
      resource_id: card.id,
      balance_minor: expect.any(Number),
      body: null,
      compacted_at: expect.any(String),
    });
    expect(json(await s.cli(['ops', 'show', 'old-unknown', '--json']))).toMatchObject({
      outcome: 'unknown',
      body: '{"amount":4}',
    });
    expect(
      json(await s.cli(['ops', 'list', '--unresolved', '--all', '--json'])).data.map(
        (e: { idempotency_key: string }) => e.idempotency_key,
      ),
    ).toContain('old-unknown');

    const fromJournal = await s.cli(resolved);
    expect(fromJournal.code, fromJournal.stderr).toBe(0);
    expect(json(fromJournal)).toMatchObject({
      from_journal: true,
      outcome: 'succeeded',
      idempotency_key: 'old-resolved',
    });
    const otherBytes = await s.cli(sameKeyOtherAmount); // the body's hash is kept: another amount with the old key is still refused
    expect(otherBytes.code, otherBytes.stdout).not.toBe(0);
    expect(otherBytes.stdout + otherBytes.stderr).not.toMatch(/"from_journal": true, "outcome": "succeeded"/);
    const stillUnknown = await s.cli(unknown);
    expect(stillUnknown.code, stillUnknown.stderr).toBe(7);
    const replay = await s.cli(['ops', 'replay', 'old-resolved', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect((await wallet(j.mock, 'test')).balance_minor).toBe(before);

    const all = (await s.cli(['ops', 'list', '--all', '--ndjson'])).stdout.split('\n').filter(Boolean);
    expect(all).toHaveLength(402);
    expect((await s.cli(['ops', 'verify'])).stderr).toMatch(/is sound/);
    const again = json(await s.cli(['ops', 'compact', '--json']));
    expect(again).toMatchObject({ compacted: 0 }); // what is compacted stays so
    const secret = j.mock.keys.test.secret;
    for (const f of filesUnder(state(s))) expect(readFileSync(f, 'latin1')).not.toContain(secret);
  }, 120_000);

  it('a --batch run again after its operations were compacted: every row answered from the journal with its balance, nothing sent', async () => {
    const s = sandbox();
    const cards = await Promise.all([0, 1, 2].map(() => activeCard(j.mock, { amount: 100 })));
    const file = join(s.dir, 'topups.csv');
    writeFileSync(file, 'card,amount\n' + cards.map((c, i) => `${c.id},${5 + i}\n`).join(''));
    const first = await s.cli(['cards', 'recharge', '--batch', file, '--json']);
    expect(first.code, first.stderr).toBe(0);
    rewriteJournal(state(s), (r) => ({ ...r, time: new Date(Date.parse(r.time as string) - 120 * DAY).toISOString() }));
    const compacted = await s.cli(['ops', 'compact', '--json']);
    expect(json(compacted).compacted).toBe(3);
    await advance(j.mock, 49 * 3600);
    const before = (await wallet(j.mock, 'test')).balance_minor;
    const again = await s.cli(['cards', 'recharge', '--batch', file, '--json']);
    expect(again.code, again.stderr).toBe(0);
    const rows = again.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(3);
    for (const [i, row] of rows.entries())
      expect(row).toMatchObject({ status: 'ok', from_journal: true, id: cards[i]!.id, balance_minor: 105 + i });
    expect((await wallet(j.mock, 'test')).balance_minor).toBe(before);
  }, 120_000);

  it('a bad retention is a usage error, naming the flag or the variable', async () => {
    const s = sandbox();
    for (const bad of [
      ['ops', 'compact', '--older-than', 'soon'],
      ['ops', 'compact', '--older-than', '0'],
    ]) {
      const r = await s.cli(bad);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/number of days/);
    }
    const badEnv = await s.cli(['ops', 'compact'], { CARDCTL_JOURNAL_RETENTION: 'forever' });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('CARDCTL_JOURNAL_RETENTION');
  }, 120_000);
});

describe('compaction while money commands write', () => {
  it('ops compact and 8 recharges at once: every operation recorded, the journal sound, each charged once', async () => {
    const s = sandbox();
    mkdirSync(state(s), { recursive: true, mode: 0o700 });
    const old = legacyJournalText({
      ops: 300,
      baseUrl: j.mock.baseUrl,
      keyId: j.mock.keys.test.keyId,
      stepMs: 3 * 60_000,
      newestMs: Date.now() - 3 * DAY,
    });
    writeFileSync(join(state(s), 'operations.ndjson'), old);
    expect((await s.cli(['ops', 'list', '--limit', '1'])).code).toBe(0);
    const keys = Array.from({ length: 8 }, (_, n) => `live-${n}`);
    const cards = await Promise.all(keys.map(() => activeCard(j.mock, { amount: 100 })));
    const before = (await wallet(j.mock)).balance_minor;
    const results = await Promise.all([
      s.cli(['ops', 'compact', '--older-than', '1', '--json']),
      ...keys.map((k, i) =>
        s.cli(['cards', 'recharge', cards[i]!.id, '--amount', String(10 + i), '--idempotency-key', k, '--json']),
      ),
    ]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    expect(json(results[0]!).compacted).toBe(300);
    expect((await wallet(j.mock)).balance_minor).toBe(before - (10 + 11 + 12 + 13 + 14 + 15 + 16 + 17));
    for (const k of keys)
      expect(json(await s.cli(['ops', 'show', k, '--json'])), k).toMatchObject({
        idempotency_key: k,
        outcome: 'resolved',
        status: 200,
      });
    expect((await s.cli(['ops', 'list', '--all', '--ndjson'])).stdout.split('\n').filter(Boolean)).toHaveLength(308);
    expect(json(await s.cli(['ops', 'verify', '--json']))).toMatchObject({ ok: true, unreadable: [] });
    // each sent again: the API's replay, nothing charged twice
    for (const [i, k] of keys.entries())
      expect(
        (await s.cli(['cards', 'recharge', cards[i]!.id, '--amount', String(10 + i), '--idempotency-key', k, '--json']))
          .code,
      ).toBe(0);
    expect((await wallet(j.mock)).balance_minor).toBe(before - (10 + 11 + 12 + 13 + 14 + 15 + 16 + 17));
  }, 120_000);

  it('a money command starts the compaction in the background once a day when operations aged past the retention', async () => {
    const s = sandbox();
    mkdirSync(state(s), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(state(s), 'operations.ndjson'),
      legacyJournalText({
        ops: 50,
        baseUrl: j.mock.baseUrl,
        keyId: j.mock.keys.test.keyId,
        stepMs: DAY,
        newestMs: Date.now() - 80 * DAY,
      }),
    );
    const card = await activeCard(j.mock, { amount: 100 });
    const r = await s.cli(['cards', 'recharge', card.id, '--amount', '1', '--idempotency-key', 'bg-1', '--json'], {
      CARDCTL_JOURNAL_RETENTION: '100d',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await until(() => meta(state(s), 'last_compaction') !== undefined)).toBe(true);
    const shown = json(await s.cli(['ops', 'show', 'gen-0', '--json']));
    expect(shown).toMatchObject({ outcome: 'resolved', body: null, compacted_at: expect.any(String) });
    expect(json(await s.cli(['ops', 'show', 'gen-49', '--json']))).toMatchObject({ body: '{"amount":100}' }); // 80 days old: kept whole
    // once a day: the next money command starts none
    const next = await s.cli(['cards', 'recharge', card.id, '--amount', '1', '--idempotency-key', 'bg-2', '--json'], {
      CARDCTL_JOURNAL_RETENTION: '100d',
    });
    expect(next.code, next.stderr).toBe(0);
  }, 120_000);
});
