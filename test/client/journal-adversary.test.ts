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

describe('a damaged record is never skipped silently', () => {
  it('a --batch rerun two days later with one damaged byte in the key bucket of one row: that row is refused (journal_damaged), the others come from the journal; nothing is charged; after `ops repair` all come from the journal', async () => {
    const s = sandbox();
    const cards = await Promise.all([1, 2, 3].map(() => activeCard(j.mock, { amount: 100 })));
    const file = join(s.dir, 'rows.csv');
    writeFileSync(file, `card,amount\n${cards.map((c) => `${c.id},5`).join('\n')}\n`);
    const batch = ['cards', 'recharge', '--batch', file, '--idempotency-prefix', 'dmg-batch', '--json'];
    const first = await s.cli(batch);
    expect(first.code).toBe(0);
    const key2 = JSON.parse(first.stdout.trim().split('\n')[1]!).idempotency_key as string; // row 2's
    await twoDaysPass(s);
    expect((await s.cli(['ops', 'list'])).code).toBe(0); // takes the aged file over
    const bucketOf = (key: string) =>
      join(state(s), 'journal', 'keys', `${createHash('sha256').update(key).digest('hex').slice(0, 3)}.ndjson`);
    const bucket = bucketOf(key2);
    const bytes = readFileSync(bucket);
    const at = bytes.indexOf(key2) + 4;
    bytes[at] = bytes[at]! ^ 0x20; // a letter's case: still JSON, another key, caught by the checksum
    writeFileSync(bucket, bytes);
    const before = await balance();
    const rows = (r: CliResult) =>
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const again = await s.cli(batch);
    expect(again.code, again.stderr).toBe(1);
    const [r1, r2, r3] = rows(again);
    expect(r1).toMatchObject({ row: 1, status: 'ok', from_journal: true });
    expect(r2).toMatchObject({ row: 2, status: 'error' });
    expect(r2.error.code).toBe('journal_damaged');
    expect(r3).toMatchObject({ row: 3, status: 'ok', from_journal: true });
    expect(await balance()).toBe(before);
    expect((await s.cli(['ops', 'repair'])).code).toBe(0);
    const repaired = await s.cli(batch);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(rows(repaired).map((r) => [r.row, r.status, r.from_journal])).toEqual([
      [1, 'ok', true],
      [2, 'ok', true],
      [3, 'ok', true],
    ]);
    expect(await balance()).toBe(before);
  });

  it('a damaged line in the id index: `ops show ID` and `ops resolve ID` say so and name `ops repair` (not that a money operation was not sent); the key still finds it', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    await fault(j.mock, 'recharge', '500_after_commit');
    expect(
      (
        await s.cli([
          'cards',
          'recharge',
          card.id,
          '--amount',
          '3',
          '--idempotency-key',
          'index-damaged',
          '--retries',
          '0',
        ])
      ).code,
    ).toBe(7);
    const [id] = readdirSync(join(state(s), 'journal', 'unresolved'));
    const index = join(state(s), 'journal', 'ids', `${id!.slice(3, 5)}.ndjson`);
    const bytes = readFileSync(index);
    bytes[20] = bytes[20]! ^ 0x02;
    writeFileSync(index, bytes);
    for (const args of [
      ['ops', 'show', id!],
      ['ops', 'resolve', id!, '--outcome', 'failed'],
    ]) {
      const r = await s.cli(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`damaged record \\(checksum mismatch\\) in the id index \\(ids/\\): operation "${id}" may be on it`),
      );
      expect(r.stderr).toContain('cardctl ops repair');
      expect(r.stderr).not.toMatch(/money operation was not sent/);
    }
    expect(json(await s.cli(['ops', 'show', 'index-damaged', '--json']))).toMatchObject({ id, outcome: 'unknown' });
    expect((await s.cli(['ops', 'repair'])).stdout).toMatch(
      /repaired ids\/..\.ndjson: 1 damaged line, 1 record restored/,
    );
    expect((await s.cli(['ops', 'show', id!])).code).toBe(0);
  });

  it('an unresolved marker with a damaged byte, or a folder in its place: `ops list --unresolved` and `doctor` still show the operation', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    await fault(j.mock, 'recharge', '500_after_commit');
    const unknown = await s.cli([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '4',
      '--idempotency-key',
      'marker-unknown',
      '--retries',
      '0',
    ]);
    expect(unknown.code, unknown.stderr).toBe(7);
    const markers = join(state(s), 'journal', 'unresolved');
    const [id] = readdirSync(markers);
    const marker = join(markers, id!);
    const damaged = readFileSync(marker);
    damaged[3] = damaged[3]! ^ 0x01; // inside "key": the marker no longer parses
    for (const damage of [
      () => writeFileSync(marker, damaged),
      () => (rmSync(marker, { force: true }), mkdirSync(marker)),
    ]) {
      damage();
      const listed = await s.cli(['ops', 'list', '--unresolved', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(json(listed).data).toMatchObject([{ id, idempotency_key: 'marker-unknown', outcome: 'unknown' }]);
      const doctor = await s.cli(['doctor']);
      expect(doctor.stdout).toMatch(/1 money operation with an unknown outcome for these credentials/);
    }
  });
});

describe('compaction.json', () => {
  it('a damaged date in it (a day not yet past the retention) does not stop compaction for good: the days are looked at again', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    expect(
      (await s.cli(['cards', 'recharge', card.id, '--amount', '2', '--idempotency-key', 'compact-state'])).code,
    ).toBe(0);
    await twoDaysPass(s);
    expect((await s.cli(['ops', 'list'])).code).toBe(0); // takes the aged file over
    writeFileSync(
      join(state(s), 'journal', 'compaction.json'),
      JSON.stringify({ compacted_through: '2926-11-20', last_run: new Date().toISOString() }) + '\n',
    );
    const r = await s.cli(['ops', 'compact', '--older-than', '1d', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r)).toMatchObject({ compacted: 1, damaged: [] });
  });
});

describe('an interrupted takeover of operations.ndjson', () => {
  it('killed after moving the journal in, before removing the old file: the next command removes it, and takes nothing over twice', async () => {
    const s = sandbox();
    mkdirSync(state(s), { recursive: true, mode: 0o700 });
    const old = join(state(s), 'operations.ndjson');
    writeFileSync(
      old,
      legacyJournalText({ ops: 300, baseUrl: j.mock.baseUrl, keyId: j.mock.keys.test.keyId, unknownEvery: 7 }),
      { mode: 0o600 },
    );
    linkSync(old, join(s.dir, 'same-file')); // the same file (inode) under another name
    expect((await s.cli(['ops', 'list'])).code).toBe(0);
    expect(existsSync(old)).toBe(false);
    linkSync(join(s.dir, 'same-file'), old); // as a SIGKILL between the journal's rename into place and the old file's removal leaves it
    const list = await s.cli(['ops', 'list', '--limit', '1']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toContain('299 more operations');
    expect(existsSync(old)).toBe(false);
    expect((await s.cli(['doctor'])).stdout).toMatch(/\(300 operations, 43 unresolved/);
    expect(json(await s.cli(['ops', 'list', '--unresolved', '--all', '--json'])).data).toHaveLength(43);
  });

  it('a damaged byte in its checkpoint (a digit of the offset) loses no record: the takeover starts over, and the old recharge is not charged again', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    // 10,000 operations of 8 KB each (the first checkpoint comes after 96 MiB staged, about half way), two days old
    const ops = 10_000;
    const body = Buffer.from(JSON.stringify({ amount: 5, pad: 'x'.repeat(6000) }));
    const path = `/api/v1/cards/${card.id}/recharge`;
    const lines: string[] = [];
    for (let i = 0; i < ops; i++) {
      const id = `op_${(0x100000000000 + i * 7919).toString(16).slice(-12)}`;
      const time = new Date(Date.now() - 48 * HOUR - (ops - i) * 1000).toISOString();
      lines.push(
        JSON.stringify({
          type: 'op',
          id,
          time,
          profile: null,
          source: 'env',
          mode: 'test',
          base_url: j.mock.baseUrl,
          key_id: j.mock.keys.test.keyId,
          method: 'POST',
          path,
          query: '',
          idempotency_key: `big-${i}`,
          body_b64: body.toString('base64'),
          body_sha256: 'f'.repeat(64),
        }),
      );
      lines.push(
        JSON.stringify({
          type: 'outcome',
          id,
          time,
          status: 200,
          outcome: 'resolved',
          code: null,
          resource_id: card.id,
        }),
      );
    }
    mkdirSync(state(s), { recursive: true, mode: 0o700 });
    writeFileSync(join(state(s), 'operations.ndjson'), lines.join('\n') + '\n', { mode: 0o600 });
    const progress = await j.killTakeoverAtCheckpoint(s);
    expect(existsSync(join(state(s), 'journal')), 'interrupted before the end').toBe(false);
    // one damaged byte: a digit of the offset goes up, so a resume from it would skip records
    const text = readFileSync(progress);
    const m = /"offset":(\d+)/.exec(text.toString('latin1'))!;
    // the operation just after the checkpoint: a resume from the damaged offset would skip it
    const next =
      (readFileSync(join(state(s), 'operations.ndjson'))
        .subarray(0, Number(m[1]))
        .toString('latin1')
        .match(/"type":"op"/g)?.length ?? 0) + 5;
    let at = m.index + 9 + Math.max(0, m[1]!.length - 7);
    while (text[at] === 0x39) at++;
    text[at] = text[at]! + 1;
    writeFileSync(progress, text);

    const resumed = await s.cli(['ops', 'list', '--all', '--ndjson']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toMatch(/could not be read/);
    expect(
      new Set(
        resumed.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).id),
      ).size,
    ).toBe(ops);
    await advance(j.mock, 49 * 3600);
    const before = await balance();
    const again = await s.cli([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '5',
      '--idempotency-key',
      `big-${next}`,
      '--json',
    ]);
    expect(again.code, again.stdout).toBe(5); // another body than the one journaled: payload_mismatch, never sent
    expect(json(again).error.code).toBe('payload_mismatch');
    expect(await balance()).toBe(before);
  }, 180_000);
});

describe('a command killed between the appends of one record', () => {
  it('an op only in its key bucket (killed before its segment, index and marker): refused a day later, and `ops repair` makes it listable and resolvable', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    await fault(j.mock, 'recharge', '500_after_commit');
    const recharge = [
      'cards',
      'recharge',
      card.id,
      '--amount',
      '2',
      '--idempotency-key',
      'cut-short',
      '--retries',
      '0',
      '--json',
    ];
    expect((await s.cli(recharge)).code).toBe(7);
    await twoDaysPass(s);
    expect((await s.cli(['ops', 'list'])).code).toBe(0); // takes the aged file over
    // what a SIGKILL right after the key bucket's append leaves: the op there, nowhere else
    const journal = join(state(s), 'journal');
    const [id] = readdirSync(join(journal, 'unresolved'));
    rmSync(join(journal, 'segments'), { recursive: true });
    rmSync(join(journal, 'ids'), { recursive: true });
    rmSync(join(journal, 'unresolved'), { recursive: true });
    const [bucket] = readdirSync(join(journal, 'keys'));
    const bucketFile = join(journal, 'keys', bucket!);
    writeFileSync(bucketFile, readFileSync(bucketFile, 'utf8').split('\n')[0] + '\n'); // the op line, not its outcome

    const before = await balance();
    const again = await s.cli(recharge);
    expect(again.code, again.stdout).toBe(7);
    expect(json(again).error.hint).toContain(`cardctl ops resolve ${id}`);
    const lost = await s.cli(['ops', 'resolve', id!, '--outcome', 'failed']);
    expect(lost.code).toBe(4);
    expect(lost.stderr).toContain('cardctl ops repair');

    const repair = await s.cli(['ops', 'repair']);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(/completed segments\/.*: 1 record it lacked/);
    const listed = await s.cli(['ops', 'list', '--unresolved', '--json']);
    expect(json(listed).data).toMatchObject([{ id, idempotency_key: 'cut-short', outcome: 'unknown' }]);
    const resolved = await s.cli(['ops', 'resolve', id!, '--outcome', 'failed']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect((await s.cli(['ops', 'repair'])).stderr).toMatch(/is sound/);
    const after = await s.cli(recharge);
    expect(after.code, after.stdout).toBe(5); // a person said it failed: reported, not sent
    expect(json(after).error.message).not.toMatch(/TypeError/);
    expect(await balance()).toBe(before);
  });
});

describe('a folder where a journal file should be', () => {
  it('a key bucket replaced by a folder: money commands, ops list and doctor say which file and what to do; moved aside, `ops repair` rebuilds it from the segments and the old recharge is not charged again', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const recharge = ['cards', 'recharge', card.id, '--amount', '4', '--idempotency-key', 'bucket-folder', '--json'];
    expect((await s.cli(recharge)).code).toBe(0);
    await twoDaysPass(s);
    expect((await s.cli(['ops', 'list'])).code).toBe(0); // takes the aged file over
    const [name] = readdirSync(join(state(s), 'journal', 'keys'));
    const bucket = join(state(s), 'journal', 'keys', name!);
    rmSync(bucket);
    mkdirSync(bucket);
    const before = await balance();
    const said =
      /cannot read the operations journal's .*keys\/[0-9a-f]{3}\.ndjson \(a folder is where a file should be\)/;
    const refused = await s.cli(recharge);
    expect(refused.code, refused.stdout).toBe(2); // like a folder that cannot be written: the user sets it right
    expect(json(refused).error).toMatchObject({ code: 'journal_unreadable' });
    expect(json(refused).error.message).toMatch(said);
    expect(json(refused).error.hint).toContain('cardctl ops repair');
    for (const args of [
      ['ops', 'list', '--key', 'bucket-folder'],
      ['ops', 'show', 'bucket-folder'],
      ['ops', 'repair'],
    ]) {
      const r = await s.cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(said);
      expect(r.stderr).not.toMatch(/EISDIR: illegal operation|\n\s+at /);
    }
    expect((await s.cli(['doctor'])).stdout).toMatch(/✗ journal\s+cannot read the operations journal's/);

    rmSync(bucket, { recursive: true }); // moved aside, as the hint says
    const repair = await s.cli(['ops', 'repair']);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(
      /completed keys\/[0-9a-f]{3}\.ndjson: 2 records it lacked, restored from the other copy/,
    );
    const again = await s.cli(recharge);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ from_journal: true, outcome: 'succeeded' });
    expect(await balance()).toBe(before);
  });
});

describe('killed mid-compaction and mid-repair', () => {
  it('`ops compact` and `ops repair` SIGKILLed at several points: every operation is still there once, old keys are still refused, and the next run finishes the work', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const DAY = 24 * HOUR;
    // 500 operations over 100 days, every 7th unknown: about half are due for compaction
    mkdirSync(state(s), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(state(s), 'operations.ndjson'),
      legacyJournalText({
        ops: 500,
        baseUrl: j.mock.baseUrl,
        keyId: j.mock.keys.test.keyId,
        stepMs: DAY / 5,
        unknownEvery: 7,
        card: card.id,
        newestMs: Date.now() - 2 * DAY,
      }),
    );
    expect((await s.cli(['ops', 'list'])).code).toBe(0); // taken over
    const before = await balance();
    const check = async (when: string) => {
      const all = await s.cli(['ops', 'list', '--all', '--ndjson']);
      expect(all.code, `${when}: ${all.stderr}`).toBe(0);
      expect(all.stderr, when).not.toMatch(/damaged/);
      const ids = all.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; outcome: string });
      expect(new Set(ids.map((e) => e.id)).size, when).toBe(500);
      expect(
        ids.filter((e) => e.outcome === 'unknown'),
        when,
      ).toHaveLength(Math.ceil(500 / 7));
      // gen-1 resolved, gen-0 unknown, both months old (journaled with another body: payload_mismatch): neither is sent
      for (const key of ['gen-1', 'gen-0']) {
        const again = await s.cli([
          'cards',
          'recharge',
          card.id,
          '--amount',
          '100',
          '--idempotency-key',
          key,
          '--json',
        ]);
        expect(again.code, `${when}: ${again.stdout}`).toBe(5);
        expect(json(again).error.code).toBe('payload_mismatch');
      }
      expect(await balance(), when).toBe(before);
    };
    for (const [args, delays] of [
      [
        ['ops', 'compact', '--older-than', '50d'],
        [250, 450, 700],
      ],
      [
        ['ops', 'repair'],
        [250, 450],
      ],
    ] as const) {
      for (const ms of delays) {
        const { child, closed } = j.start(s, [...args]); // it may finish before the kill
        try {
          await new Promise((r) => setTimeout(r, ms));
        } finally {
          child.kill('SIGKILL');
          await closed;
        }
        await check(`${args.join(' ')} killed after ${ms} ms`);
      }
    }
    const done = await s.cli(['ops', 'compact', '--older-than', '50d', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(json(done)).toMatchObject({ damaged: [] });
    expect(json(done).skipped).toBeUndefined(); // the killed runs' lock was taken over
    await check('after a whole compaction');
    expect((await s.cli(['ops', 'repair'])).stderr).toMatch(/is sound/);
  }, 300_000);
});
