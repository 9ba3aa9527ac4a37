// Proof of the journal's ordering for a --batch whose rows overlap (docs/journal.md, "Durability
// and concurrency"), from the system calls themselves: a recharge batch (BENCH_ORDER_ROWS rows,
// default 16, --concurrency 8) run under `strace -f -y` against the bench mock. For each row it
// checks, in the order the kernel saw the calls: the write() of its op record to its key bucket
// and to its segment, an fdatasync of each of those files that began after that write and
// returned before the first write of the socket carrying the row's Idempotency-Key; and that
// each outcome was written and synced in both files before the process exited. Prints one line
// per row and exits 1 on any row that breaks it. Needs strace (Linux).
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
  const written = new Map(); // path -> records written to it (not yet covered by a sync that began after them)
  const syncing = new Map(); // pid -> { path, covers } of an fdatasync under way
  const synced = new Map(); // `${kind} ${id}` -> Set of 'keys' | 'segments' synced
  const ops = new Map(); // idempotency key -> op id
  const sent = new Map(); // idempotency key -> line of its first socket write
  const report = [];
  let ok = true;
  let syncs = 0;
  let shared = 0; // syncs of a journal file that covered the records of more than one operation (group commit)
  const syncDone = ({ path, covers }) => {
    syncs++;
    if (new Set(covers.map((r) => r.id)).size > 1) shared++;
    const where = path.includes('/journal/keys/')
      ? 'keys'
      : path.includes('/journal/segments/')
        ? 'segments'
        : undefined;
    if (!where) return;
    for (const r of covers) {
      const k = `${r.type} ${r.id}`;
      if (!synced.has(k)) synced.set(k, new Set());
      synced.get(k).add(where);
    }
  };
  for (const line of trace.split('\n')) {
    const m = /^(\d+)\s+([\d:.]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, pid, , call] = m;
    const fileWrite = /^write\(\d+<([^>]+\.ndjson)>, "(.*)"/.exec(call);
    if (fileWrite) {
      const [, path, text] = fileWrite;
      const list = written.get(path) ?? [];
      for (const rec of text.split('\\n')) {
        const op = /\\"type\\":\\"(op|outcome)\\".*?\\"id\\":\\"(op_\w+)\\"/.exec(rec);
        if (!op) continue;
        list.push({ type: op[1], id: op[2] });
        const key = /\\"idempotency_key\\":\\"([^\\]+)\\"/.exec(rec);
        if (op[1] === 'op' && key) ops.set(key[1], op[2]);
      }
      written.set(path, list);
      continue;
    }
    const sync = /^fdatasync\(\d+<([^>]+)>\)?\s*(<unfinished \.\.\.>|= 0)/.exec(call);
    if (sync) {
      const s = { path: sync[1], covers: written.get(sync[1]) ?? [] };
      written.set(sync[1], []);
      if (sync[2] === '= 0') syncDone(s);
      else syncing.set(pid, s);
      continue;
    }
    if (/^<\.\.\. fdatasync resumed>.*= 0/.test(call) && syncing.has(pid)) {
      syncDone(syncing.get(pid));
      syncing.delete(pid);
      continue;
    }
    const sock = /^(?:write|writev)\(\d+<(?:socket|TCP)[^>]*>.*?Idempotency-Key: ([^\\"]+)/.exec(call);
    if (sock && !sent.has(sock[1])) {
      const key = sock[1];
      sent.set(key, line);
      const id = ops.get(key);
      const both = id ? synced.get(`op ${id}`) : undefined;
      const held = both?.has('keys') && both?.has('segments');
      if (!held) ok = false;
      report.push(
        `${key}: op ${id ?? '(none written)'} ${held ? 'synced in its key bucket and its segment before its request was written to the socket' : 'NOT synced in both copies before its request left'}`,
      );
    }
  }
  for (const [key, id] of ops) {
    const both = synced.get(`outcome ${id}`);
    if (!both?.has('keys') || !both?.has('segments')) {
      ok = false;
      report.push(`${key}: outcome of ${id} NOT synced in both copies before exit`);
    }
  }
  if (sent.size !== ROWS) ok = false;
  report.push(
    `${syncs} fdatasync calls for ${ROWS} rows (folders of new files included), ${shared} of them covering several rows' records (group commit)`,
  );
  report.push(
    `${sent.size} of ${ROWS} requests seen; ${ok ? 'every op record was synced (fdatasync returned) in both copies before its request left, and every outcome before the process exited' : 'THE ORDER WAS BROKEN'}`,
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
    'trace=write,writev,fdatasync',
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
