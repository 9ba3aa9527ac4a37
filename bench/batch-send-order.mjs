// Proof of the journal's ordering for a --batch whose rows overlap (docs/journal.md, "Durability
// and concurrency"), from the system calls themselves: a recharge batch (BENCH_ORDER_ROWS rows,
// default 16, --concurrency 8) run under `strace -f -y` against the bench mock. SQLite writes a
// commit as pages (frames) appended to journal.db-wal and then syncs that file. For each row it
// checks, in the order the kernel saw the calls: a write of the WAL holding the row's op record,
// then a sync of the WAL that began after that write and returned before the first write of the
// socket carrying the row's Idempotency-Key; and that its outcome was written and synced in the
// WAL before the process exited. Prints one line per row and exits 1 on any row that breaks it.
// Needs strace (Linux).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROWS = Number(process.env.BENCH_ORDER_ROWS ?? 16);
const work = mkdtempSync(join(tmpdir(), 'cardctl-bench-order-'));
const server = spawn(process.execPath, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
const info = JSON.parse(
  await new Promise((resolve) => createInterface({ input: server.stdout }).once('line', resolve)),
);

/** Checks the trace; returns the report lines and whether every row held. */
function check(trace) {
  const pending = []; // WAL writes not yet covered by a sync that began after them: { ops: [ids], outcomes: [ids] }
  const syncing = new Map(); // pid -> the writes an fsync/fdatasync under way covers
  const durableOp = new Set(); // op ids whose record a returned sync covered
  const durableOutcome = new Set();
  const ops = new Map(); // idempotency key -> op id
  const sent = new Map(); // idempotency key -> line of its first socket write
  const report = [];
  let ok = true;
  let syncs = 0;
  let shared = 0; // WAL syncs that covered the op records of more than one row (group commit)
  const syncDone = (covers) => {
    syncs++;
    const opsCovered = new Set(covers.flatMap((w) => w.ops));
    if (opsCovered.size > 1) shared++;
    for (const id of opsCovered) durableOp.add(id);
    for (const w of covers) for (const id of w.outcomes) durableOutcome.add(id);
  };
  for (const line of trace.split('\n')) {
    const m = /^(\d+)\s+([\d:.]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, pid, , call] = m;
    const walWrite = /^(?:pwrite64|write)\(\d+<[^>]+journal\.db-wal>, "(.*)"/.exec(call);
    if (walWrite) {
      const text = walWrite[1];
      const w = { ops: [], outcomes: [] };
      for (const op of text.matchAll(
        /\\"type\\":\\"op\\",\\"id\\":\\"(op_\w+)\\".*?\\"idempotency_key\\":\\"([^\\]+)\\"/g,
      )) {
        w.ops.push(op[1]);
        if (!ops.has(op[2])) ops.set(op[2], op[1]);
      }
      for (const o of text.matchAll(/\\"type\\":\\"outcome\\",\\"time\\":\\"[^\\]+\\",\\"id\\":\\"(op_\w+)\\"/g))
        w.outcomes.push(o[1]);
      pending.push(w);
      continue;
    }
    const sync = /^(?:fsync|fdatasync)\(\d+<[^>]+journal\.db-wal>\)?\s*(<unfinished \.\.\.>|= 0)/.exec(call);
    if (sync) {
      const covers = pending.splice(0);
      if (sync[1] === '= 0') syncDone(covers);
      else syncing.set(pid, covers);
      continue;
    }
    if (/^<\.\.\. f(?:data)?sync resumed>.*= 0/.test(call) && syncing.has(pid)) {
      syncDone(syncing.get(pid));
      syncing.delete(pid);
      continue;
    }
    const sock = /^(?:write|writev)\(\d+<(?:socket|TCP)[^>]*>.*?Idempotency-Key: ([^\\"]+)/.exec(call);
    if (sock && !sent.has(sock[1])) {
      const key = sock[1];
      sent.set(key, line);
      const id = ops.get(key);
      const held = id !== undefined && durableOp.has(id);
      if (!held) ok = false;
      report.push(
        `${key}: op ${id ?? '(none written)'} ${held ? 'committed and synced in the WAL before its request was written to the socket' : 'NOT synced before its request left'}`,
      );
    }
  }
  for (const [key, id] of ops) {
    if (!durableOutcome.has(id)) {
      ok = false;
      report.push(`${key}: outcome of ${id} NOT synced before exit`);
    }
  }
  if (sent.size !== ROWS) ok = false;
  report.push(
    `${syncs} syncs of journal.db-wal for ${ROWS} rows, ${shared} of them covering several rows' op records (group commit)`,
  );
  report.push(
    `${sent.size} of ${ROWS} requests seen; ${ok ? 'every op record was synced (the sync returned) before its request left, and every outcome before the process exited' : 'THE ORDER WAS BROKEN'}`,
  );
  return { ok, report };
}

let ok = false;
try {
  const csv = join(work, 'rows.csv');
  const fd = openSync(csv, 'w');
  writeSync(fd, 'card,amount\n' + `${info.cardId},1\n`.repeat(ROWS));
  closeSync(fd);
  const out = join(work, 'trace.txt');
  const env = {
    ...process.env,
    CARDCTL_NO_CODE_CACHE: '1',
    CARDCTL_BASE_URL: info.baseUrl,
    CARDCTL_API_KEY: info.keyId,
    CARDCTL_API_SECRET: info.secret,
    CARDCTL_MODE: 'test',
    CARDCTL_STATE_DIR: join(work, 'state'),
    CARDCTL_JOURNAL_RETENTION: 'off',
  };
  const args = [
    '-f',
    '-y',
    '-tt',
    '-s',
    '65536',
    '-e',
    'trace=write,writev,pwrite64,fsync,fdatasync',
    '-o',
    out,
    process.execPath,
    join(root, 'bin', 'run.js'),
    'cards',
    'recharge',
    '--batch',
    csv,
    '--allow-duplicates',
    '--concurrency',
    '8',
    '--json',
  ];
  const r = spawnSync('strace', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.error) throw new Error(`strace: ${r.error.message} (this check needs strace, on Linux)`);
  if (r.status !== 0) throw new Error(`the batch exited ${r.status}: ${String(r.stderr).slice(-2000)}`);
  const result = check(readFileSync(out, 'utf8'));
  ok = result.ok;
  for (const line of result.report) console.log(line);
} finally {
  server.stdin.end();
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = ok ? 0 : 1;
