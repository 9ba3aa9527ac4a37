// A `--batch` rerun whose second thread fails (src/client/batch/rerun-index.ts): the pass over the
// journal is made again, whole, in the main thread, and the rerun answers exactly as one whose
// worker did not fail, sending nothing. The worker is made to fail for real: the built package is
// copied and its dist/client/batch/rerun-pass-worker.js replaced, once by a module that throws as
// it loads, once by the real pass whose slot-file writes fail part-way (one batch of slots
// written, the next torn in half, then the thread dies: the slots it reserved hold zeros).
// Nothing in the product is switched for the test.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, apiCall, type MockHandle, apiRequestsDuring } from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { packageCopy, type PackageCopy } from '../helpers/package-copy.js';
import { batchKeys, writeRerunJournal } from '../helpers/batch-files.js';

const WORKER = 'dist/client/batch/rerun-pass-worker.js';
/** Rows, all in the journal: enough that the main thread is still reading buckets when the worker starts (it takes half of them). */
const ROWS = 20_000;
const PREFIX = 'fallback';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
let card: { id: string };
let batch: string;
let normal: CliResult;
const copies: PackageCopy[] = [];

/** The rerun, by this checkout's build or a copy's (`bin`). */
const rerun = (extra: Record<string, string> = {}, bin?: string) =>
  sb.run(
    [
      'cards',
      'recharge',
      '--batch',
      batch,
      '--allow-duplicates',
      '--idempotency-prefix',
      PREFIX,
      '--json',
      '--verbose',
    ],
    { env: { ...env, CARDCTL_RERUN_THREADS: '2', ...extra }, bin, timeoutMs: 120_000 },
  );

const sentDuring = (f: () => Promise<unknown>): Promise<number> => apiRequestsDuring(mock, f);

const balance = async () => (await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` })).body.data.balance_minor;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 53, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  card = await activeCard(mock, { amount: 1000 });
  const text = 'card,amount\n' + `${card.id},1\n`.repeat(ROWS);
  // the journal of this batch sent an hour ago under its keys (in the old one-file format, taken over below)
  const keys = await batchKeys('cards.recharge', text, { prefix: PREFIX, allowDuplicates: true });
  writeRerunJournal(sb.stateDir, {
    rows: ROWS,
    prefix: PREFIX,
    baseUrl: mock.baseUrl,
    keyId: mock.keys.test.keyId,
    card: card.id,
    keys,
  });
  const takeover = await sb.run(['ops', 'list', '--limit', '1'], { env, timeoutMs: 120_000 });
  expect(takeover.code, takeover.stderr).toBe(0);
  batch = join(sb.dir, 'rows.csv');
  writeFileSync(batch, text);
  // the rerun as it goes when both threads do their part: the answer every other run must give
  const sent = await sentDuring(async () => (normal = await rerun()));
  expect(normal.code, normal.stderr.slice(-2000)).toBe(5); // the refused rows
  expect(normal.stderr).toMatch(/\* journal: \d+ key buckets read once for the batch's keys, in 2 threads\n/);
  expect(normal.stderr).not.toContain('second thread failed');
  expect(sent).toBe(0);
}, 240_000);
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
  for (const c of copies) c.cleanup();
});

/** The rerun by a copy of the package whose worker module is `worker`: the same exit code and stdout as the normal one, nothing sent, and --verbose says the pass fell back. */
async function rerunWithWorker(worker: string, extra: Record<string, string> = {}): Promise<CliResult> {
  const copy = packageCopy({ [WORKER]: worker });
  copies.push(copy);
  let r!: CliResult;
  const sent = await sentDuring(async () => (r = await rerun(extra, copy.bin)));
  expect(r.code, r.stderr.slice(-2000)).toBe(normal.code);
  expect(r.stdout === normal.stdout, 'stdout identical to the rerun whose worker did not fail').toBe(true);
  expect(sent).toBe(0);
  expect(await balance()).toBe(1000);
  expect(r.stderr).toMatch(/\* journal: \d+ key buckets read once for the batch's keys, in 1 thread\n/);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  return r;
}

describe('a batch rerun whose second thread fails answers as if it had not, and says so under --verbose', () => {
  it('the worker module throws as it loads: the pass is made in the main thread; same exit code and rows, nothing sent', async () => {
    const r = await rerunWithWorker(`throw new Error('the worker module cannot load (test double)');\n`);
    expect(r.stderr).toContain(
      "* journal: the pass's second thread failed (the worker module cannot load (test double) (exit 1)): the pass was made again, whole, in one thread\n",
    );
  });

  it('the worker dies part-way, one batch of slots written and the next torn in half: the pass is made again, whole; same exit code and rows, nothing sent', async () => {
    const report = join(sb.dir, 'worker-report.json');
    // the real pass, its writes to the slot file failing at the second batch of slots (after half of it)
    const worker = `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
const { job, share } = workerData;
const realWrite = fs.writeSync;
let batches = 0;
fs.writeSync = function (fd, buf, offset, length, position) {
  if (fd !== share.fd) return realWrite.apply(this, arguments);
  if (++batches < 2) return realWrite.call(this, fd, buf, offset, length, position);
  realWrite.call(this, fd, buf, offset, Math.floor(length / 2), position);
  fs.writeFileSync(process.env.WORKER_REPORT, JSON.stringify({ written: batches - 1, torn: Math.floor(length / 2) }));
  throw new Error('EIO: i/o error, write (test double)');
};
syncBuiltinESMExports();
const { passOver } = await import('./rerun-pass.js');
const { SlotFile } = await import('./slot-file.js');
passOver(job, SlotFile.attach(share));
fs.writeFileSync(process.env.WORKER_REPORT, JSON.stringify({ written: batches, finished: true }));
parentPort.postMessage('done');
`;
    const r = await rerunWithWorker(worker, { WORKER_REPORT: report });
    expect(existsSync(report), 'the worker ran').toBe(true);
    // the main thread left it enough buckets to write a batch of slots and tear the next
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual({ written: 1, torn: expect.any(Number) });
    expect(r.stderr).toContain(
      "* journal: the pass's second thread failed (EIO: i/o error, write (test double) (exit 1)): the pass was made again, whole, in one thread\n",
    );
  });
});
