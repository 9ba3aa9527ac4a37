// Issue 22, items 1-3 and 8: the mock's --state files are checksummed and locked. A damaged byte
// anywhere is refused (file and place named, files untouched) or, with --recover, salvaged up to
// the damage with the damaged files kept aside; never a start with other data. A second mock on
// the same file is refused naming the holder's pid; a dead holder's lock is taken over.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { loadDurableState } from '../../src/mock/persistence.js';
import { checksum } from '../../src/mock/state-format.js';
import {
  activeCard,
  apiCall,
  createCustomer,
  ctl,
  expectOk,
  fundLive,
  getCustomer,
  type MockHandle,
} from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';

let root: string;
let good: string; // folder holding a state of 12 customers: a base and a journal of 12+ batches
const customerIds: string[] = [];

// each file's SHA-256 (comparing Buffers with toEqual walks them byte by byte: 150 trials took minutes)
const filesOf = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((n) => [
        n,
        createHash('sha256')
          .update(readFileSync(join(dir, n)))
          .digest('hex'),
      ]),
  );
const copyGood = (name: string): string => {
  const dir = join(root, name);
  cpSync(good, dir, { recursive: true });
  return dir;
};
const journalOf = (dir: string): string => join(dir, readdirSync(dir).find((n) => /\.journal\.\d+$/.test(n))!);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cardctl-faults-state-'));
  good = join(root, 'good');
  const mock = (await startMock({
    port: 0,
    seed: 22,
    providerLatencyMs: 0,
    stateFile: join(good, 'state.json'),
  })) as unknown as MockHandle;
  try {
    for (let i = 0; i < 12; i++) customerIds.push((await createCustomer(mock)).id);
  } finally {
    await mock.close();
  }
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('one damaged byte anywhere: refused or the same data, never other data', () => {
  it('150 trials over the base and the journal: 0 silent starts with other data, the files untouched when refused', () => {
    const reference = JSON.stringify(loadDurableState(join(good, 'state.json'))!.state);
    const names = readdirSync(good).filter((n) => n === 'state.json' || /\.journal\.\d+$/.test(n));
    expect(names.length).toBeGreaterThanOrEqual(2);
    let seed = 0x2222;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let refused = 0;
    let silentOther = 0;
    const trialDir = join(root, 'trial');
    for (let t = 0; t < 150; t++) {
      rmSync(trialDir, { recursive: true, force: true });
      cpSync(good, trialDir, { recursive: true });
      const victim = join(trialDir, names[t % names.length]!);
      const bytes = readFileSync(victim);
      const at = rand(bytes.length);
      bytes[at] = bytes[at]! ^ (1 + rand(255)); // a different byte, whatever it was
      writeFileSync(victim, bytes);
      const before = filesOf(trialDir);
      let loaded: string | null = null;
      try {
        loaded = JSON.stringify(loadDurableState(join(trialDir, 'state.json'))!.state);
      } catch (err) {
        refused++;
        expect((err as Error).message).toContain(victim);
        expect((err as Error).message).toMatch(/line \d+ \(byte \d+\)/);
        expect(filesOf(trialDir), `trial ${t}: refused but the files changed`).toEqual(before);
      }
      if (loaded !== null && loaded !== reference) silentOther++;
    }
    expect(silentOther).toBe(0);
    expect(refused).toBeGreaterThan(145);
  });

  it('the built CLI refuses a damaged journal line mid-file: exit 2, file and line named, files untouched', async () => {
    const dir = copyGood('cli-refuse');
    const journal = journalOf(dir);
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[3] = lines[3]!.replace('"', '#'); // the third batch
    writeFileSync(journal, lines.join('\n'));
    const before = filesOf(dir);
    const r = await runCli(['mock', 'start', '--port', '0', '--state', join(dir, 'state.json')], {
      env: { CARDCTL_CONFIG_DIR: join(dir, '..', 'cfg-refuse') },
      timeoutMs: 20_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${journal}, line 4`);
    expect(r.stderr).toContain('--recover');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(filesOf(dir)).toEqual(before);
  });
});

describe('--recover', () => {
  it('keeps every batch before the damage in a new base and the damaged files aside; the next start is clean', async () => {
    const dir = copyGood('recover');
    const file = join(dir, 'state.json');
    const journal = journalOf(dir);
    const original = { base: readFileSync(file), journal: readFileSync(journal) };
    const lines = readFileSync(journal, 'utf8').split('\n');
    // line 1 is the header, line 2 the start's batch (if any), then one batch per customer: damage the 8th line
    lines[7] = lines[7]!.slice(0, 20) + 'X' + lines[7]!.slice(21);
    writeFileSync(journal, lines.join('\n'));
    const damagedJournal = readFileSync(journal);
    const mock = (await startMock({
      port: 0,
      stateFile: file,
      recover: true,
      providerLatencyMs: 0,
    })) as unknown as MockHandle & { recovered?: { keptAs: string[]; batches: number; damage: string } };
    try {
      expect(mock.recovered?.damage).toContain(`${journal}, line 8`);
      const kept = mock.recovered!.keptAs;
      expect(kept).toHaveLength(2);
      // the damaged files, byte for byte, under new names
      expect(readFileSync(kept[0]!)).toEqual(original.base);
      expect(readFileSync(kept[1]!)).toEqual(damagedJournal);
      const found: string[] = [];
      for (const id of customerIds) if ((await getCustomer(mock, id).catch(() => null))?.id === id) found.push(id);
      // every customer saved before the damaged line, none after it
      expect(found.length).toBeGreaterThan(0);
      expect(found).toEqual(customerIds.slice(0, found.length));
      expect(found.length).toBeLessThan(customerIds.length);
    } finally {
      await mock.close();
    }
    const again = await startMock({ port: 0, stateFile: file });
    expect(again.recovered).toBeUndefined();
    await again.close();
  });
});

describe('records of the wrong shape', () => {
  it('a base with a checksum that verifies but a customer {"id": 5} is refused naming the record', () => {
    const dir = copyGood('shape');
    const file = join(dir, 'state.json');
    const [header, record] = readFileSync(file, 'utf8').split('\n');
    const state = JSON.parse(record!.slice(9));
    state.customers = { A: { id: 5 } };
    const json = JSON.stringify(state);
    writeFileSync(file, `${header}\n${checksum(json)} ${json}\n`);
    const before = filesOf(dir);
    expect(() => loadDurableState(file)).toThrow(/customers "A": its id is 5, not its key/);
    expect(filesOf(dir)).toEqual(before);
  });
});

describe('records checked against their schemas on load', () => {
  it('a state holding every kind of record loads; a field of the wrong type in any of them is refused naming the record and the field', async () => {
    const dir = join(root, 'kinds');
    const file = join(dir, 'state.json');
    const mock = (await startMock({
      port: 0,
      seed: 23,
      providerLatencyMs: 0,
      stateFile: file,
    })) as unknown as MockHandle;
    try {
      await ctl(mock, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' }); // deliveries to a closed port
      const card = await activeCard(mock, { amount: 500 }); // a customer, a card, events
      await ctl(mock, 'POST', `/cards/${card.id}/transactions`, {
        type: 'capture',
        status: 'completed',
        amount_minor: 120,
      }); // a transaction
      expectOk(
        await apiCall(mock, {
          method: 'POST',
          path: '/deposit-addresses',
          body: { network: mock.networks[0] },
          key: mock.keys.live,
        }),
        201,
      ); // an address
      await fundLive(mock); // a deposit
    } finally {
      await mock.close();
    }
    const loaded = loadDurableState(file)!.state as unknown as Record<string, Record<string, unknown>>;
    const kinds = [
      'customers',
      'cards',
      'transactions',
      'addresses',
      'deposits',
      'endpoints',
      'deliveries',
      'keys',
      'wallets',
      'merchants',
    ];
    for (const k of kinds) expect(Object.keys(loaded[k] ?? {}).length, k).toBeGreaterThan(0);
    // each damage written as a new base whose checksum verifies: only the schema can catch it
    const cases: Array<[string, (s: any) => void, RegExp]> = [
      [
        'a card balance as text',
        (s) => ((Object.values(s.cards)[0] as any).balance_minor = '500'),
        /cards "[0-9A-Z]{26}": balance_minor: /,
      ],
      [
        'a card status unknown',
        (s) => ((Object.values(s.cards)[0] as any).status = 'melted'),
        /cards "[0-9A-Z]{26}": status: /,
      ],
      [
        'a customer kyc status unknown',
        (s) => ((Object.values(s.customers)[0] as any).kyc_status = 'maybe'),
        /customers "[0-9A-Z]{26}": kyc_status: /,
      ],
      ['a key without scopes', (s) => delete (Object.values(s.keys)[0] as any).scopes, /keys "[^"]+": scopes: /],
      [
        'a transaction of an unknown type',
        (s) => ((Object.values(s.transactions) as any[][]).find((l) => l.length)![0].type = 'gift'),
        /transactions of card "[0-9A-Z]{26}", "[^"]+": type: /,
      ],
      [
        'a transaction amount as text',
        (s) => ((Object.values(s.transactions) as any[][]).find((l) => l.length)![0].amount_minor = '5'),
        /transactions of card "[0-9A-Z]{26}", "[^"]+": amount_minor: /,
      ],
      [
        'a delivery state unknown',
        (s) => ((Object.values(s.deliveries)[0] as any).state = 'lost'),
        /deliveries "[^"]+": state: /,
      ],
      [
        'a wallet balance fractional',
        (s) => ((Object.values(s.wallets)[0] as any).balance_minor = 1.5),
        /wallets "[^"]+": balance_minor: /,
      ],
    ];
    for (const [what, edit, message] of cases) {
      const trial = join(root, `kinds-${what.replace(/\W+/g, '-')}`);
      rmSync(trial, { recursive: true, force: true });
      mkdirSync(trial, { recursive: true });
      const state = JSON.parse(JSON.stringify(loaded));
      edit(state);
      const json = JSON.stringify(state);
      writeFileSync(
        join(trial, 'state.json'),
        `${readFileSync(file, 'utf8').split('\n')[0]}\n${checksum(json)} ${json}\n`,
      );
      const before = filesOf(trial);
      expect(() => loadDurableState(join(trial, 'state.json')), what).toThrow(message);
      expect(filesOf(trial), what).toEqual(before);
    }
  });
});

describe('state files of the format before checksums (format 1)', () => {
  const toV1 = (dir: string): void => {
    const file = join(dir, 'state.json');
    writeFileSync(file, readFileSync(file, 'utf8').split('\n')[1]!.slice(9));
    const journal = journalOf(dir);
    const lines = readFileSync(journal, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((l) => l.slice(9));
    writeFileSync(journal, lines.join('\n') + '\n');
  };

  it('are migrated on first start: every record kept, the files rewritten in format 2', async () => {
    const dir = copyGood('v1');
    toV1(dir);
    const file = join(dir, 'state.json');
    const mock = (await startMock({ port: 0, stateFile: file })) as unknown as MockHandle & { migrated?: boolean };
    try {
      expect(mock.migrated).toBe(true);
      for (const id of customerIds) expect((await getCustomer(mock, id)).id).toBe(id);
    } finally {
      await mock.close();
    }
    expect(readFileSync(file, 'utf8').startsWith('{"format":"cardctl-mock-state","version":2}\n')).toBe(true);
  });

  it('with a damaged line mid-journal: refused, untouched (format 1 is read strictly)', () => {
    const dir = copyGood('v1-damaged');
    toV1(dir);
    const journal = journalOf(dir);
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[2] = '#' + lines[2]!.slice(1);
    writeFileSync(journal, lines.join('\n'));
    const before = filesOf(dir);
    expect(() => loadDurableState(join(dir, 'state.json'))).toThrow(
      new RegExp(`${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line 3`),
    );
    expect(filesOf(dir)).toEqual(before);
  });
});

describe('the lock', () => {
  it('a second mock on a state file in use is refused at once, naming the pid that holds it', async () => {
    const dir = copyGood('lock');
    const file = join(dir, 'state.json');
    const first = await startMock({ port: 0, stateFile: file });
    try {
      const r = await runCli(['mock', 'start', '--port', '0', '--state', file], {
        env: { CARDCTL_CONFIG_DIR: join(root, 'cfg-lock') },
        timeoutMs: 20_000,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`in use by another mock (pid ${process.pid})`);
      await expect(startMock({ port: 0, stateFile: file })).rejects.toThrow(`pid ${process.pid}`);
    } finally {
      await first.close();
    }
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a lock left by a dead process is taken over', async () => {
    const dir = copyGood('stale');
    const file = join(dir, 'state.json');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(`${file}.lock`, `pid ${dead}\ntoken feedface\n`);
    const mock = (await startMock({ port: 0, stateFile: file })) as unknown as MockHandle;
    try {
      expect(readFileSync(`${file}.lock`, 'utf8')).toContain(`pid ${process.pid}`);
      expect((await getCustomer(mock, customerIds[0]!)).id).toBe(customerIds[0]);
    } finally {
      await mock.close();
    }
  });
});
