// `cardctl demo` as a user runs it: the built CLI as a child process. It must pass every step
// of every section, print none of the mock's secrets, and leave the user's own config folder as
// it was. Where PostgreSQL's binaries are installed, its section on a shared journal runs against
// the throwaway server the demo starts (and must stop, also on Ctrl-C); elsewhere that section
// says in one line that it was skipped and how to see it (test/helpers/programs.ts names the skip).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { BIN, cleanEnv, runCli, type CliResult } from '../helpers/cli.js';
import { journalText } from '../helpers/journal.js';
import { needsPostgres } from '../helpers/programs.js';

const SEED = 4242;
const withPostgres = needsPostgres();
const FLEET = 'A journal shared by a fleet: two machines, one PostgreSQL';

interface Summary {
  ok: boolean;
  failed_step: string | null;
  steps: Array<{ name: string; command: string; exit_code: number | null; ok: boolean }>;
  skipped: Array<{ section: string; reason: string; how_to_see: string }>;
  folder: string | null;
}

/** Whether a process still runs. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The processes whose command line names `text` (Linux's /proc; none elsewhere). */
function processesNaming(text: string): number[] {
  if (!existsSync('/proc/self/cmdline')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry));
    } catch {} // it ended meanwhile
  }
  return found;
}

describe('cardctl demo', () => {
  let home: string;
  let userConfig: string;
  let userState: string;
  const userProfiles = '{"profiles":{"mine":{"note":"the user\'s own store, must stay as it is"}}}\n';
  let run: CliResult;
  let summary: Summary;
  let secrets: string[];
  let testKeyId: string;

  beforeAll(async () => {
    // The secrets the demo's mock holds: the same seed gives the same ones.
    const twin = await startMock({ port: 0, seed: SEED });
    secrets = [twin.keys.test.secret, twin.keys.live.secret, twin.webhookSecret, twin.controlToken];
    testKeyId = twin.keys.test.keyId;
    await twin.close();

    home = mkdtempSync(join(tmpdir(), 'cardctl-demo-test-'));
    userConfig = join(home, 'config');
    userState = join(home, 'state');
    mkdirSync(userConfig, { recursive: true });
    writeFileSync(join(userConfig, 'profiles.json'), userProfiles);
    // one full run (about 45 CLI starts) serves every assertion below; --keep lets us look inside
    run = await runCli(['demo', '--json', '--keep', '--seed', String(SEED)], {
      env: {
        CARDCTL_CONFIG_DIR: userConfig,
        XDG_STATE_HOME: userState,
        // a user's own credentials in the environment must not leak into the tour
        CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        CARDCTL_API_SECRET: 'not-the-mock-secret-AAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        CARDCTL_PROFILE: 'mine',
      },
      timeoutMs: 120_000,
    });
    summary = JSON.parse(run.stdout) as Summary;
  }, 150_000);

  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
    if (summary?.folder) rmSync(summary.folder, { recursive: true, force: true });
  });

  it('exits 0 with every step reported ok', () => {
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    expect(summary.ok).toBe(true);
    expect(summary.failed_step).toBeNull();
    expect(summary.steps.length).toBeGreaterThan(25);
    expect(summary.steps.filter((s) => !s.ok)).toEqual([]);
    // the background steps (`... &`) got their exit code too: nothing was left running
    expect(summary.steps.filter((s) => s.exit_code === null)).toEqual([]);
  });

  it('runs every section, in order, to the last step', () => {
    const headings = [...run.stderr.matchAll(/^━━ (\d+)\. (.+) ━━$/gm)].map((m) => `${m[1]}. ${m[2]}`);
    // these sections, in this order (others may sit between them), numbered 1..N, the books last
    const expected = [
      'Profiles',
      'Customers',
      'Cards',
      'Live mode',
      'outcome is unknown',
      'A journal shared by a fleet',
      'Signatures',
      'Webhooks',
      'CI: a smoke test',
      'Snapshots',
      'The books',
    ];
    headings.forEach((h, i) => expect(h).toMatch(new RegExp(`^${i + 1}\\. `)));
    const found = expected.map((word) => headings.findIndex((h) => h.includes(word)));
    expect(
      found.every((at) => at >= 0),
      `missing among: ${headings.join(' | ')}`,
    ).toBe(true);
    expect([...found].sort((a, b) => a - b)).toEqual(found);
    expect(found.at(-1)).toBe(headings.length - 1);
    expect(summary.steps.at(-1)?.name).toBe('completion: bash');
    expect(run.stderr).toContain(`✓ all ${summary.steps.length} steps passed in `);
    // a --batch step sets a V8 flag when it starts (src/client/heap.ts); on a Node line
    // whose V8 lacked it, V8 would print this (the CI runs this test on Node 22, 24 and 26 too)
    expect(run.stderr).not.toMatch(/unrecognized flag/);
  });

  it('covers each capability with a real command line and its exit code', () => {
    const byName = new Map(summary.steps.map((s) => [s.name, s]));
    expect(byName.get('doctor')).toMatchObject({ command: 'cardctl doctor', exit_code: 0 });
    // the generic command is still shown once; the rest use the dedicated commands
    expect(byName.get('customers: create')?.command).toMatch(
      /^cardctl request POST \/customers --data @customer\.json --include$/,
    );
    expect(summary.steps.filter((s) => s.command.startsWith('cardctl request '))).toHaveLength(1);
    expect(byName.get('cards: issue replay')?.command).toMatch(
      /^cardctl cards issue --customer [0-9A-Z]{26} --amount 5000 --idempotency-key demo-issue-1\b/,
    );
    expect(byName.get('cards: recharge --dry-run')).toMatchObject({
      command: expect.stringMatching(
        /^cardctl cards recharge [0-9A-Z]{26} --amount 2500 --idempotency-key demo-topup-1 --dry-run\b/,
      ),
      exit_code: 0,
      ok: true,
    });
    expect(byName.get('customers: validation error')).toMatchObject({
      command: 'cardctl customers create --from customer-invalid.json',
      exit_code: 2,
    });
    expect(byName.get('live: deposits list')?.command).toBe('cardctl deposits list --profile live');
    expect(byName.get('mock: webhook endpoint refused')).toMatchObject({
      command: "cardctl mock webhook-endpoints add 'https://[::ffff:10.0.0.1]/hooks'",
      exit_code: 2,
    });
    expect(byName.get('live: money needs --yes')?.exit_code).toBe(2);
    // a command left waiting in the background while another one runs, then collected
    expect(byName.get('cards: issue --wait')?.command).toMatch(/^cardctl cards issue .* --wait --wait-timeout 20 &$/);
    expect(byName.get('cards: issue --wait, done')).toMatchObject({ command: 'wait $!', exit_code: 0 });
    expect(byName.get('webhooks: listen')).toMatchObject({
      command: 'cardctl webhooks listen --mock --max-events 1 --json &',
      exit_code: 0,
    });
    expect(byName.get('webhooks: trigger')?.command).toMatch(
      /^cardctl webhooks trigger card\.issued --data '\{"card_id":"[0-9A-Z]{26}"\}'$/,
    );
    expect(byName.get('webhooks: listen, delivery')).toMatchObject({ command: 'wait $!', exit_code: 0 });
    // a profile picks the listener's mock and the trigger's mode; a batch row refused for KYC says what to do
    expect(byName.get('webhooks: listen -p')).toMatchObject({
      command: 'cardctl webhooks listen --mock -p test --max-events 1 --json &',
      exit_code: 0,
      ok: true,
    });
    expect(byName.get('webhooks: trigger -p live')).toMatchObject({
      command: "cardctl webhooks trigger card.issued -p live | grep -E '^(id|mode|type) '",
      exit_code: 0,
      ok: true,
    });
    expect(byName.get('webhooks: listen -p, delivery')).toMatchObject({ command: 'wait $!', exit_code: 0, ok: true });
    expect(byName.get('cards: batch')).toMatchObject({
      command: 'cardctl cards issue --batch cards.csv',
      exit_code: 5,
      ok: true,
    });
    expect(run.stderr).toMatch(
      /^2 +error +409 .*verification was rejected \(identity_mismatch\): waiting will not help/m,
    );
    // grading a receiver: the listener started, graded (exit 0), then interrupted
    expect(byName.get('webhooks: receiver to grade')).toMatchObject({
      command: 'cardctl webhooks listen --json &',
      exit_code: 0,
    });
    expect(byName.get('webhooks: test')).toMatchObject({
      command: expect.stringMatching(/^cardctl webhooks test http:\/\/127\.0\.0\.1:\d+\/webhooks$/),
      exit_code: 0,
    });
    expect(byName.get('webhooks: receiver stopped')).toMatchObject({ command: 'kill -INT $!; wait $!', exit_code: 0 });
    expect(byName.get('smoke')).toMatchObject({ command: 'cardctl smoke --junit smoke.xml', exit_code: 0 });
    expect(byName.get('cards: recharge, answer lost')?.exit_code).toBe(7);
    // one key, two shells: the second refuses while the first is sending (exit 9), the first recharges once
    expect(byName.get('cards: recharge, answered late')?.command).toMatch(
      /^cardctl cards recharge [0-9A-Z]{26} --amount 100 --idempotency-key demo-recharge-3 --verbose &$/,
    );
    expect(byName.get('cards: recharge, same key in a second shell')).toMatchObject({ exit_code: 9, ok: true });
    expect(byName.get('cards: recharge, answered late, done')).toMatchObject({
      command: 'wait $!',
      exit_code: 0,
      ok: true,
    });
    expect(byName.get('live: test key refused')?.exit_code).toBe(3);
    // mistakes answered: a word that is not a command, a mistyped flag, a refusal for a card's state
    expect(byName.get('mistake: cards list')).toMatchObject({ command: 'cardctl cards list', exit_code: 2, ok: true });
    expect(byName.get('mistake: mistyped flag')).toMatchObject({ exit_code: 2, ok: true });
    expect(byName.get('mistake: card state')).toMatchObject({ exit_code: 5, ok: true });
    expect(byName.get('mock: snapshot save')).toMatchObject({
      command: 'cardctl mock snapshot save tour',
      exit_code: 0,
    });
    expect(byName.get('mock: snapshot restore')).toMatchObject({
      command: 'cardctl mock snapshot restore tour',
      exit_code: 0,
    });
    expect(byName.get('sign: diagnose')?.exit_code).toBe(3);
    expect(byName.get('webhooks: verify')?.exit_code).toBe(0);
    expect(byName.get('webhooks: verify tampered')?.exit_code).toBe(3);
    // the tour printed on stderr shows each command and its output
    expect(run.stderr).toContain('$ cardctl ops replay demo-recharge-1');
    expect(run.stderr).toContain('  card: termination_blocked');
    expect(run.stderr).toMatch(/^\{"received_at":.*"valid":true,"reason":"ok","type":"card\.issued"/m);
    expect(run.stderr).toContain('✓ exit 2 · email and phone_number refused, nothing sent');
  });

  it(
    withPostgres
      ? 'a fleet on one shared journal: a batch on A, the same file on a fresh B a day later answered from the journal (0 rows sent), ops list and doctor on B, one key at a time across machines, a local journal copied in; the PostgreSQL it started is stopped'
      : 'without PostgreSQL, the shared journal section says in one line that it was skipped and how to see it',
    () => {
      const heading = new RegExp(`^━━ \\d+\\. ${FLEET} ━━$`, 'm');
      expect(run.stderr).toMatch(heading);
      const after = run.stderr.slice(run.stderr.search(heading)).split('\n');
      const fleetSteps = summary.steps.filter((s) => s.name.startsWith('fleet: '));
      if (!withPostgres) {
        expect(after[1]).toMatch(
          /^⤼ skipped: no PostgreSQL on this machine\. To see it: install PostgreSQL 15 or later .*CARDCTL_DEMO_JOURNAL_URL=postgres:\/\/USER@HOST\/DB/,
        );
        expect(after[2]).toBe('');
        expect(after[3]).toMatch(/^━━ \d+\. /); // the next section: one line, nothing else
        expect(fleetSteps).toEqual([]);
        expect(summary.skipped).toEqual([
          { section: FLEET, reason: 'no PostgreSQL on this machine', how_to_see: expect.any(String) },
        ]);
        expect(run.stderr).toContain(`(skipped: A journal shared by a fleet, no PostgreSQL on this machine)`);
        return;
      }
      expect(summary.skipped).toEqual([]);
      // the server: the demo's own, on loopback, its URL without a password
      const origin =
        /^The journal's PostgreSQL: PostgreSQL \d+ of this machine \(.+\), started for the tour on 127\.0\.0\.1:\d+, data in (\S+): stopped and removed at the end\.$/m.exec(
          run.stderr,
        );
      expect(origin, after.slice(0, 5).join('\n')).not.toBeNull();
      expect(run.stderr).toMatch(
        /^ {2}export CARDCTL_JOURNAL_URL=postgres:\/\/cardctl_demo@127\.0\.0\.1:\d+\/cardctl_demo_\d{14}_[0-9a-f]{6}$/m,
      );
      const byName = new Map(fleetSteps.map((s) => [s.name, s]));
      const onA = 'CARDCTL_STATE_DIR="$PWD/machine-a" cardctl';
      const onB = 'CARDCTL_STATE_DIR="$PWD/machine-b" cardctl';
      expect(byName.get('fleet: issue on A')).toMatchObject({
        command: expect.stringMatching(
          new RegExp(
            `^${onA.replace(/[$.]/g, '\\$&')} cards issue --customer [0-9A-Z]{26} --amount 5000 --idempotency-key demo-fleet-card `,
          ),
        ),
        exit_code: 0,
      });
      expect(byName.get('fleet: batch on A')).toMatchObject({
        command: `${onA} cards recharge --batch fleet-topups.csv`,
        exit_code: 0,
        ok: true,
      });
      expect(byName.get('fleet: the next day')).toMatchObject({
        command: "cardctl mock clock advance 90000 | grep -E '^(now|offset_seconds) '",
        exit_code: 0,
      });
      expect(byName.get('fleet: batch rerun on B')).toMatchObject({
        command: `${onB} cards recharge --batch fleet-topups.csv`,
        exit_code: 0,
        ok: true,
      });
      expect(run.stderr).toContain('✓ exit 0 · 0 rows sent, the card charged once for each row');
      expect(byName.get('fleet: ops list on B')).toMatchObject({ command: `${onB} ops list`, exit_code: 0, ok: true });
      expect(byName.get('fleet: doctor on B')).toMatchObject({
        command: `${onB} doctor | grep -E journal`,
        exit_code: 0,
        ok: true,
      });
      expect(run.stderr).toMatch(
        /^✓ journal +postgres:\/\/cardctl_demo@127\.0\.0\.1:\d+\/cardctl_demo_\w+ \(shared PostgreSQL journal, reachable, 4 operations, 0 unresolved/m,
      );
      expect(byName.get('fleet: same key on B')).toMatchObject({ exit_code: 9, ok: true });
      expect(byName.get('fleet: recharge on A, done')).toMatchObject({ command: 'wait $!', exit_code: 0, ok: true });
      expect(byName.get('fleet: ops copy --to')).toMatchObject({
        command: 'cardctl ops copy --journal local --to "$CARDCTL_JOURNAL_URL" --json',
        exit_code: 0,
        ok: true,
      });
      expect(byName.get('fleet: ops list on B, moved in')).toMatchObject({ exit_code: 0, ok: true });
      // the machines' state folders: their own, and no journal file in them (they record in PostgreSQL)
      for (const m of ['machine-a', 'machine-b']) {
        const state = join(summary.folder!, 'files', m);
        expect(existsSync(state)).toBe(true);
        expect(existsSync(join(state, 'journal.db'))).toBe(false);
      }
      expect(readdirSync(join(summary.folder!, 'files')).filter((f) => f.startsWith('postgres'))).toEqual([]);
      // the server it started is gone, with its folder (--keep keeps the tour's folder, not the server)
      const dir = origin![1]!;
      expect(existsSync(dir)).toBe(false);
      expect(processesNaming(dir)).toEqual([]);
    },
  );

  it('prints none of the mock secrets, anywhere', () => {
    expect(run.stderr).toContain(`--key-id ${testKeyId}`); // the same mock as the twin: these are its secrets
    for (const s of secrets) {
      expect(run.stdout.includes(s)).toBe(false);
      expect(run.stderr.includes(s)).toBe(false);
    }
    expect(run.stderr).toContain('"$TEST_SECRET"'); // shown as a variable piped on stdin
    // nor a database password: no URL with one, and PGPASSWORD shown as a placeholder
    expect(run.stderr).not.toMatch(/postgres(ql)?:\/\/[^\s@/]+:[^\s@/]+@/);
    if (withPostgres) expect(run.stderr).toContain('  export PGPASSWORD=…   (the password stays out of the URL');
  });

  it("leaves the user's config folder untouched: the tour's profiles and journal live in the kept folder", () => {
    expect(readdirSync(userConfig)).toEqual(['profiles.json']);
    expect(readFileSync(join(userConfig, 'profiles.json'), 'utf8')).toBe(userProfiles);
    expect(existsSync(join(userState, 'cardctl'))).toBe(false);
    expect(summary.folder).toBeTruthy();
    expect(run.stderr).toContain(`kept: ${summary.folder}`);
    const store = readFileSync(join(summary.folder!, 'config', 'profiles.json'), 'utf8');
    expect(store).toContain('"live"');
    expect(journalText(join(summary.folder!, 'state'))).toContain('demo-recharge-1');
  });

  it('prints no colour when the output is not a terminal', () => {
    expect(run.stderr).not.toMatch(/\u001b\[/);
  });
});

describe.runIf(withPostgres)('cardctl demo, interrupted (Ctrl-C) while its PostgreSQL runs', () => {
  it('stops the server it started and removes its folder and the scratch folder, then exits 130', async () => {
    const child = spawn(process.execPath, [BIN, 'demo'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => void (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => void (out += d));
    const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    // until a step of the section runs on the shared journal
    const deadline = Date.now() + 100_000;
    while (!out.includes('▸ Machine A runs a recharge batch') && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const dir = /data in (\S+): stopped and removed at the end/.exec(out)?.[1];
    const scratch = /^scratch\s+(\S+)/m.exec(out)?.[1];
    expect(dir && scratch, out.slice(-2000)).toBeTruthy();
    const postmaster = Number(readFileSync(join(dir!, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(postmaster)).toBe(true);
    expect(processesNaming(dir!)).toContain(postmaster);
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(alive(postmaster)).toBe(false);
    expect(processesNaming(dir!)).toEqual([]);
    expect(existsSync(dir!)).toBe(false);
    expect(existsSync(scratch!)).toBe(false);
    // the steps the signal ended are not reported as failures
    expect(out).not.toMatch(/✗ step/);
  }, 130_000);
});

describe('cardctl demo, when a step deviates', () => {
  it('stops, names the failed step, exits 1 and removes its temporary folder', async () => {
    // A preload that makes only `cardctl profiles list` misbehave (the demo process itself runs `demo`).
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-demo-fail-'));
    const preload = join(dir, 'break-profiles-list.mjs');
    writeFileSync(preload, "if (process.argv[2] === 'profiles' && process.argv[3] === 'list') process.exit(9);\n");
    try {
      const res = await runCli(['demo', '--json'], {
        env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` },
        timeoutMs: 60_000,
      });
      expect(res.code).toBe(1);
      const summary = JSON.parse(res.stdout) as Summary;
      expect(summary.ok).toBe(false);
      expect(summary.failed_step).toBe('profiles: list');
      expect(summary.steps.at(-1)).toMatchObject({ name: 'profiles: list', exit_code: 9, ok: false });
      expect(res.stderr).toContain('step "profiles: list" failed: exit code 9, expected 0');
      const scratch = /scratch\s+(\S+)/.exec(res.stderr)?.[1];
      expect(scratch && existsSync(scratch)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
