// One operation per merchant (issue 36 item 2): a card or a customer belongs to exactly one
// merchant, so a key's earlier sends that named the same card or customer are the same merchant's,
// whatever API key sent them. Day 1 with key A, day 2 (the API has forgotten the key) with key B
// of the same merchant: nothing is charged again. A fresh mock (other card ids) stays another
// account. And the repeat check holds back a row whose earlier send under another key has an
// unknown outcome. The built CLI against the mock, balances read from the mock.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeCard, advance, approvedCustomer, cardBalance, fault, newKey, wallet } from '../helpers/api.js';
import type { Sandbox } from '../helpers/cli.js';
import { rewriteJournal } from '../helpers/journal.js';
import { journalSandboxes, json, state } from '../helpers/journal-sandbox.js';

const HOUR = 3_600_000;
const j = journalSandboxes({ seed: 36, cliTimeoutMs: 90_000 });

/** A day passes for the journal and the mock (the API forgets every key). */
async function dayPasses(s: Sandbox): Promise<void> {
  rewriteJournal(state(s), (r) => ({ ...r, time: new Date(Date.parse(r.time as string) - 25 * HOUR).toISOString() }));
  await advance(j.mock, 25 * 3600);
}

describe("another API key of the same merchant finds the key's earlier sends", () => {
  it('a recharge and a --batch sent with key A, repeated a day later with key B through the environment: answered from the journal, nothing charged', async () => {
    const s = j.sandbox();
    const card = await activeCard(j.mock, { amount: 5000 });
    const recharge = ['cards', 'recharge', card.id, '--amount', '100', '--idempotency-key', 'order-7', '--json'];
    expect((await s.cli(recharge)).code).toBe(0);
    const file = join(s.dir, 'rows.csv');
    writeFileSync(file, `card,amount\n${card.id},3\n${card.id},4\n`);
    expect((await s.cli(['cards', 'recharge', '--batch', file, '--json'])).code).toBe(0);
    expect(await cardBalance(j.mock, card.id)).toBe(5107);
    await dayPasses(s);

    const b = await newKey(j.mock, { mode: 'test' });
    const keyB = { CARDCTL_API_KEY: b.keyId, CARDCTL_API_SECRET: b.secret };
    const again = await s.cli(recharge, keyB);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ from_journal: true, outcome: 'succeeded', idempotency_key: 'order-7' });
    const rerun = await s.cli(['cards', 'recharge', '--batch', file, '--json'], keyB);
    expect(rerun.code, rerun.stderr).toBe(0);
    for (const line of rerun.stdout.trim().split('\n')) expect(JSON.parse(line)).toMatchObject({ from_journal: true });
    // the same key with another amount is still one operation: refused, not sent
    const other = await s.cli([...recharge.slice(0, 4), '101', ...recharge.slice(5)], keyB);
    expect(other.code, other.stdout).toBe(5);
    expect(json(other).error).toMatchObject({ code: 'payload_mismatch' });
    expect(await cardBalance(j.mock, card.id)).toBe(5107);
  });

  it('an issue sent with key A, repeated a day later with key B: the customer names the merchant; answered from the journal', async () => {
    const s = j.sandbox();
    const customer = await approvedCustomer(j.mock);
    const issue = [
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '500',
      '--idempotency-key',
      'issue-7',
      '--json',
    ];
    const first = await s.cli(issue);
    expect(first.code, first.stderr).toBe(0);
    await dayPasses(s);
    const before = (await wallet(j.mock, 'test')).balance_minor;
    const b = await newKey(j.mock, { mode: 'test' });
    const again = await s.cli(issue, { CARDCTL_API_KEY: b.keyId, CARDCTL_API_SECRET: b.secret });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ from_journal: true, outcome: 'succeeded', id: json(first).id });
    expect((await wallet(j.mock, 'test')).balance_minor).toBe(before);
  });
});

describe('the repeat check and unknown outcomes', () => {
  it('a row whose earlier send under another key has an unknown outcome is held back (settle it first); no hint proposes a new prefix meanwhile', async () => {
    const s = j.sandbox();
    const card = await activeCard(j.mock, { amount: 5000 });
    const file = join(s.dir, 'one.csv');
    writeFileSync(file, `card,amount\n${card.id},100\n`);
    await fault(j.mock, 'recharge', '500_after_commit');
    const first = await s.cli(['cards', 'recharge', '--batch', file, '--retries', '0', '--json']);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).not.toMatch(/new --idempotency-prefix/);
    expect(await cardBalance(j.mock, card.id)).toBe(5100); // it went through
    const newPrefix = await s.cli(['cards', 'recharge', '--batch', file, '--idempotency-prefix', 'june', '--json']);
    expect(newPrefix.code, newPrefix.stdout).toBe(2);
    expect(json(newPrefix).error).toMatchObject({ code: 'repeat_held_back' });
    expect(json(newPrefix).error.message).toMatch(/outcome is unknown/);
    expect(json(newPrefix).error.hint).toMatch(/settle that operation first.*ops replay/);
    expect(await cardBalance(j.mock, card.id)).toBe(5100); // not charged twice
    // the same command settles it: the same key replayed, the API's first answer
    const same = await s.cli(['cards', 'recharge', '--batch', file, '--json']);
    expect(same.code, same.stderr).toBe(0);
    expect(await cardBalance(j.mock, card.id)).toBe(5100);
  });
});

describe('the same request by meaning', () => {
  it('issue rows naming the default product repeat the same rows run without a product: held back, no card issued twice; another product is another request', async () => {
    const s = j.sandbox();
    const customers = [await approvedCustomer(j.mock), await approvedCustomer(j.mock)];
    const plain = join(s.dir, 'plain.csv');
    writeFileSync(plain, `customer_id,amount_minor\n${customers.map((c) => `${c.id},6000`).join('\n')}\n`);
    const first = await s.cli(['cards', 'issue', '--batch', plain, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const before = (await wallet(j.mock, 'test')).balance_minor;
    const byDefault = j.mock.products.find((p) => p.default)!.id;
    const named = join(s.dir, 'named.csv');
    writeFileSync(
      named,
      `customer_id,amount_minor,product_id\n${customers.map((c) => `${c.id},6000,${byDefault}`).join('\n')}\n`,
    );
    const again = await s.cli(['cards', 'issue', '--batch', named, '--json']);
    expect(again.code, again.stdout).toBe(2);
    expect(json(again).error).toMatchObject({ code: 'repeat_held_back' });
    expect(json(again).error.message).toMatch(/2 rows of 2 repeat/);
    expect((await wallet(j.mock, 'test')).balance_minor).toBe(before);
    const premium = j.mock.products.find((p) => !p.default && p.enabled && p.available)!.id;
    const other = join(s.dir, 'other.csv');
    writeFileSync(other, `customer_id,amount_minor,product_id\n${customers[0]!.id},6000,${premium}\n`);
    const sent = await s.cli(['cards', 'issue', '--batch', other, '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await wallet(j.mock, 'test')).balance_minor).toBeLessThan(before);
  });
});
