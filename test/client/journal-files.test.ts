// The journal's file layer against a full disk (issue 17): the built CLI under a file size limit
// (`ulimit -f`, RLIMIT_FSIZE: Node ignores SIGXFSZ, so write() comes back short at the limit and
// then fails with EFBIG, as it does with ENOSPC on a full disk), the real mock on port 0, real
// files. An op record whose write is cut is taken back whole: the money command says what to do,
// nothing is sent, and once the limit is lifted the same command works on a sound journal.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { batchKeys } from '../helpers/batch-files.js';
import { activeCard, ctl, wallet, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT, type CliResult, type Sandbox } from '../helpers/cli.js';
import { filesUnder, legacyJournalText } from '../helpers/journal.js';

let mock: MockHandle;
let env: Record<string, string>;
const sandboxes: Sandbox[] = [];
const children = new Set<ReturnType<typeof spawn>>();
const BLOCK = 1024; // bash's ulimit -f counts 1024-byte blocks

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 83, providerLatencyMs: 0 })) as unknown as MockHandle;
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await mock?.close();
  for (const s of sandboxes) s.cleanup();
});

function sandbox(): Sandbox {
  const s = makeSandbox();
  sandboxes.push(s);
  return s;
}

/** The built CLI with no file of its own allowed past `blocks` * 1024 bytes (no limit when undefined). */
function cli(s: Sandbox, args: string[], blocks?: number): Promise<CliResult> {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CARDCTL_')) childEnv[k] = v;
  Object.assign(childEnv, { NO_COLOR: '1' }, s.env, env);
  const limit = blocks === undefined ? 'unlimited' : String(blocks);
  const child = spawn('bash', ['-c', `ulimit -f ${limit} && exec "$0" "$@"`, process.execPath, BIN, ...args], {
    cwd: ROOT,
    env: childEnv,
  });
  children.add(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  child.stdin.end();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

const bucketName = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 3);
const bucketFile = (s: Sandbox, key: string) =>
  join(s.stateDir, 'cardctl', 'journal', 'keys', `${bucketName(key)}.ndjson`);

/** Keys of `key`'s length in its key bucket (so each op record in it is as long as `key`'s will be). */
function* bucketMates(key: string): Generator<string> {
  for (let i = 0; ; i++) {
    const mate = `mate-${String(i).padStart(key.length - 5, '0')}`;
    if (bucketName(mate) === bucketName(key)) yield mate;
  }
}

/** Recharges with keys of `key`'s bucket until its op record, appended next, would cross a 1024-byte block: returns that limit in blocks. */
async function growBucketToTheEdge(s: Sandbox, card: string, key: string): Promise<{ blocks: number; size: number }> {
  const mates = bucketMates(key);
  for (let n = 0; n < 8; n++) {
    const mate = mates.next().value as string;
    const r = await cli(s, ['cards', 'recharge', card, '--amount', '7', '--idempotency-key', mate]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(bucketFile(s, key), 'utf8');
    const opLine = text
      .split('\n')
      .find((l) => l.includes(`"idempotency_key":"${mate}"`) && l.includes('"type":"op"'))!;
    const size = statSync(bucketFile(s, key)).size;
    const blocks = Math.floor(size / BLOCK) + 1;
    if (blocks * BLOCK - size < Buffer.byteLength(opLine) + 1) return { blocks, size };
  }
  throw new Error('the bucket never came near a block edge');
}

const recharges = async (card: string): Promise<number> =>
  (await ctl<unknown[]>(mock, 'GET', `/_mock/requests?path=/api/v1/cards/${card}/recharge&limit=1000`)).length;

describe('a full disk (a file size limit) while the op record is written', () => {
  it('the money command is refused with the journal error, nothing sent, the cut record taken back; with room again the same command works and nothing is damaged', async () => {
    const s = sandbox();
    const card = await activeCard(mock, { amount: 1000 });
    const key = 'full-disk-key-1';
    const { blocks, size } = await growBucketToTheEdge(s, card.id, key);
    const bucketBefore = readFileSync(bucketFile(s, key));
    const sentBefore = await recharges(card.id);
    const balanceBefore = (await wallet(mock)).balance_minor;
    const recharge = ['cards', 'recharge', card.id, '--amount', '5', '--idempotency-key', key, '--json'];

    const refused = await cli(s, recharge, blocks);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    const error = JSON.parse(refused.stdout).error;
    expect(error.code).toBe('state_folder_unwritable');
    expect(error.message).toContain(`write $XDG_STATE_HOME${bucketFile(s, key).slice(s.stateDir.length)}: EFBIG`); // the variable named, not its value
    expect(error.message).toMatch(/the money operation was not sent\.$/);
    expect(error.hint).toMatch(/free disk space/);
    expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await recharges(card.id), 'nothing reached the API').toBe(sentBefore);
    expect((await wallet(mock)).balance_minor).toBe(balanceBefore);
    // the bytes that fit before the limit were taken back: the bucket is as it was, no torn line
    expect(statSync(bucketFile(s, key)).size).toBe(size);
    expect(readFileSync(bucketFile(s, key)).equals(bucketBefore)).toBe(true);

    const again = await cli(s, recharge);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: card.id });
    expect(await recharges(card.id)).toBe(sentBefore + 1);
    expect((await wallet(mock)).balance_minor).toBe(balanceBefore - 5);
    const list = await cli(s, ['ops', 'list', '--all', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toBe('');
    expect(
      (JSON.parse(list.stdout).data as Array<{ idempotency_key: string; outcome: string }>)
        .filter((e) => e.idempotency_key === key)
        .map((e) => e.outcome),
    ).toEqual(['resolved']);
    const doctor = await cli(s, ['doctor', '--json']);
    const journalCheck = (JSON.parse(doctor.stdout).checks as Array<{ name: string; status: string }>).find(
      (c) => c.name === 'journal',
    );
    expect(journalCheck?.status, doctor.stdout).toBe('ok');
    const repair = await cli(s, ['ops', 'repair']);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stderr).toMatch(/is sound/);
  });
});

describe('a full disk while a --batch appends (the group-commit path)', () => {
  it("the row whose op record is cut is refused with the journal error and not sent; the file's rerun with room sends it once", async () => {
    const s = sandbox();
    const card = await activeCard(mock, { amount: 1000 });
    const prefix = 'full-batch';
    const text = `card,amount\n${card.id},4\n`;
    const [key] = (await batchKeys('cards.recharge', text, { prefix })) as [string]; // the key of the batch's row 1
    const { blocks, size } = await growBucketToTheEdge(s, card.id, key);
    const sentBefore = await recharges(card.id);
    const file = join(s.dir, 'rows.csv');
    writeFileSync(file, text);
    const batch = ['cards', 'recharge', '--batch', file, '--idempotency-prefix', prefix, '--json'];

    const refused = await cli(s, batch, blocks);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const rows = refused.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const row1 = rows.find((r) => r.row === 1);
    expect(row1 ?? refused.stdout + refused.stderr, refused.stderr).toMatchObject({ row: 1, status: 'error' });
    expect(row1.error.code).toBe('state_folder_unwritable');
    expect(row1.error.message).toContain(`write $XDG_STATE_HOME${bucketFile(s, key).slice(s.stateDir.length)}: EFBIG`);
    expect(await recharges(card.id), 'nothing reached the API').toBe(sentBefore);
    expect(statSync(bucketFile(s, key)).size).toBe(size);
    // the summary says the row was never sent, so the same command (same keys) sends it: not "use a new file"
    expect(refused.stderr).toContain('Refused here, never sent: row 1 ');
    expect(refused.stderr).toContain('run the same command again: those rows are sent once');
    expect(refused.stderr).not.toContain('remembered under their keys');

    const again = await cli(s, batch);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(JSON.parse(again.stdout.trim())).toMatchObject({ row: 1, status: 'ok' });
    expect(await recharges(card.id)).toBe(sentBefore + 1);
    const repair = await cli(s, ['ops', 'repair']);
    expect(repair.stderr).toMatch(/is sound/);
  });
});

/** A journal of 60 resolved operations 20 s apart, in the hour `hoursAgo` hours back (one segment), taken over from the old file; its folder. */
async function sixtyOpsInOneHour(s: Sandbox, hoursAgo: number, keyPrefix: string): Promise<string> {
  mkdirSync(join(s.stateDir, 'cardctl'), { recursive: true });
  const newestMs = Math.floor((Date.now() - hoursAgo * 3_600_000) / 3_600_000) * 3_600_000 + 30 * 60_000;
  writeFileSync(
    join(s.stateDir, 'cardctl', 'operations.ndjson'),
    legacyJournalText({
      ops: 60,
      baseUrl: env.CARDCTL_BASE_URL!,
      keyId: env.CARDCTL_API_KEY!,
      newestMs,
      stepMs: 20_000,
      keyPrefix,
    }),
  );
  expect((await cli(s, ['ops', 'list'])).code).toBe(0); // takes the old file over
  return join(s.stateDir, 'cardctl', 'journal');
}

describe('a full disk while compaction rewrites a file', () => {
  it('the rewritten copy that cannot be written whole is removed, never renamed over the file: every file as it was, and compaction works once there is room', async () => {
    const s = sandbox();
    const journal = await sixtyOpsInOneHour(s, 100 * 24, 'old');
    const before = new Map(filesUnder(journal).map((f) => [f, readFileSync(f)]));
    const largest = Math.max(...[...before.values()].map((b) => b.length));
    const blocks = Math.floor(largest / 2 / BLOCK); // the largest file's compacted copy (about 60 % of it) does not fit

    const refused = await cli(s, ['ops', 'compact', '--older-than', '90d'], blocks);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /cannot write the operations journal in .*\(write .*\.rewrite-\d+: EFBIG, a file reached the largest size allowed .*\); compaction stopped; the file it was rewriting is as it was\./,
    );
    expect(refused.stderr).toMatch(/free disk space/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const after = filesUnder(journal).filter((f) => !f.endsWith('compaction.json'));
    expect(
      after.filter((f) => f.includes('.rewrite-')),
      'no copy left behind',
    ).toEqual([]);
    for (const [f, bytes] of before) expect(readFileSync(f).equals(bytes), f).toBe(true);

    const compacted = await cli(s, ['ops', 'compact', '--older-than', '90d']);
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(compacted.stdout).toMatch(/^compacted 60 operations /);
    const repair = await cli(s, ['ops', 'repair']);
    expect(repair.stderr).toMatch(/is sound/);
  });
});

describe('a full disk while ops repair rebuilds a file', () => {
  it('exits 2 saying the disk is full (no bare EFBIG), the damaged file as it was; with room the repair restores it', async () => {
    const s = sandbox();
    const journal = await sixtyOpsInOneHour(s, 1, 'rep');
    const segment = filesUnder(journal).find((f) => f.includes(`${sep}segments${sep}`))!;
    const bytes = readFileSync(segment);
    const at = bytes.indexOf('"idempotency_key":"rep-') + 20;
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41; // one byte of a key, inside the checksummed JSON
    writeFileSync(segment, bytes);
    const blocks = Math.floor(bytes.length / 2 / BLOCK); // the segment's rebuilt copy does not fit

    const refused = await cli(s, ['ops', 'repair'], blocks);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /cannot write the operations journal in .*EFBIG.*; the repair stopped; the file it was rebuilding is as it was\./,
    );
    expect(refused.stderr).toMatch(/free disk space/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(segment).equals(bytes), 'the damaged segment as it was').toBe(true);
    expect(
      filesUnder(journal).filter((f) => f.includes('.rewrite-')),
      'no copy left behind',
    ).toEqual([]);

    const repaired = await cli(s, ['ops', 'repair']);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect((await cli(s, ['ops', 'repair'])).stderr).toMatch(/is sound/);
  });
});

describe('what the limit does to a write (the premise of the tests above)', () => {
  it('Node ignores SIGXFSZ: under ulimit -f a write is cut at the limit, then refused with EFBIG, and the process lives', async () => {
    const s = sandbox();
    const file = join(s.dir, 'probe');
    writeFileSync(
      join(s.dir, 'probe.cjs'),
      `const fs = require('fs'); const fd = fs.openSync(${JSON.stringify(file)}, 'a'); const out = [];
for (let i = 0; i < 4; i++) { try { out.push(fs.writeSync(fd, Buffer.alloc(400, 65))); } catch (e) { out.push(e.code); } }
console.log(JSON.stringify(out));`,
    );
    const child = spawn('bash', ['-c', `ulimit -f 1 && exec "$0" "$@"`, process.execPath, join(s.dir, 'probe.cjs')]);
    children.add(child);
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    const code = await new Promise((r) => child.on('close', r));
    children.delete(child);
    expect(code).toBe(0);
    expect(JSON.parse(Buffer.concat(out).toString())).toEqual([400, 400, 224, 'EFBIG']);
  });
});
