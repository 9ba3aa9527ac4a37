// A local journal on a network file system (docs/journal.md, "Where it lives"): machines given one
// state folder on a share could each find a key not sent and both send it, so no money is sent
// from such a folder. The built CLI against the real mock, the state folder on a real sshfs mount
// (test/helpers/sshfs.ts), and the very same folder through this machine's own disk beside it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeCard, apiRequestsDuring, cardBalance } from '../helpers/api.js';
import { journalSandboxes, json } from '../helpers/journal-sandbox.js';
import { startPostgres } from '../helpers/postgres.js';
import { needsPostgres } from '../helpers/programs.js';
import { mountSshfs, needsSshfs, type Sshfs } from '../helpers/sshfs.js';

const j = journalSandboxes({ seed: 36, cliTimeoutMs: 60_000 });

describe.runIf(needsSshfs())('the state folder on a network file system (sshfs)', () => {
  let share: Sshfs | undefined;
  beforeAll(async () => {
    share = await mountSshfs();
  }, 60_000);
  afterAll(async () => {
    await share?.close();
  });

  it('money commands, a batch and a replay are refused (exit 2, nothing sent, the fix named); reads still work; the same folder on the local disk sends', async () => {
    const s = j.sandbox();
    const onShare = { CARDCTL_STATE_DIR: join(share!.mountPoint, 'cardctl') };
    const onDisk = { CARDCTL_STATE_DIR: join(share!.behind, 'cardctl') }; // the same files, through this machine's disk
    const card = await activeCard(j.mock, { amount: 100 });
    const sent = await s.cli(
      ['cards', 'recharge', card.id, '--amount', '5', '--idempotency-key', 'share-1', '--json'],
      onDisk,
    );
    expect(sent.code, sent.stderr).toBe(0);
    const opId = json(await s.cli(['ops', 'list', '--json'], onShare)).data[0].id as string; // read through the share
    const before = await cardBalance(j.mock, card.id);
    const batch = join(s.dir, 'share.csv');
    writeFileSync(batch, `card_id,amount\n${card.id},7\n${card.id},8\n`);
    for (const argv of [
      ['cards', 'recharge', card.id, '--amount', '6', '--json'],
      ['cards', 'recharge', '--batch', batch, '--json'],
      ['ops', 'replay', opId, '--json'],
    ]) {
      let r: Awaited<ReturnType<typeof s.cli>> | undefined;
      const requests = await apiRequestsDuring(j.mock, async () => (r = await s.cli(argv, onShare)));
      expect(r!.code, r!.stdout + r!.stderr).toBe(2);
      const { error } = json(r!);
      expect(error.code).toBe('journal_network_folder');
      expect(error.message).toContain('is on a network file system (fuse.sshfs)');
      expect(error.message).toContain(share!.mountPoint); // its mount point has a space: mountinfo's \040 read back
      expect(error.hint).toContain('CARDCTL_STATE_DIR');
      expect(error.hint).toContain('postgres://');
      expect(requests, argv.join(' ')).toBe(0);
    }
    expect(await cardBalance(j.mock, card.id)).toBe(before);
    const doctor = await s.cli(['doctor'], onShare);
    expect(doctor.code).not.toBe(0);
    expect(doctor.stdout).toMatch(/journal .*network file system \(fuse\.sshfs\)/);
    // the same folder through the local disk: sent as ever
    const local = await s.cli(['cards', 'recharge', card.id, '--amount', '6', '--json'], onDisk);
    expect(local.code, local.stderr).toBe(0);
    expect(await cardBalance(j.mock, card.id)).toBe(before + 6);
  });

  it.runIf(needsPostgres())(
    'the way out: `ops copy --to` copies the journal on the share into a shared PostgreSQL one, whose machines then answer its keys',
    async () => {
      const pg = await startPostgres();
      try {
        const url = await pg.createDatabase('from_share');
        const s = j.sandbox();
        const card = await activeCard(j.mock, { amount: 100 });
        const key = ['--idempotency-key', 'share-copy-1', '--json'];
        const recharge = ['cards', 'recharge', card.id, '--amount', '9', ...key];
        const onDisk = { CARDCTL_STATE_DIR: join(share!.behind, 'copied') };
        expect((await s.cli(recharge, onDisk)).code).toBe(0);
        const balance = await cardBalance(j.mock, card.id);
        const copy = await s.cli(['ops', 'copy', '--to', url], {
          CARDCTL_STATE_DIR: join(share!.mountPoint, 'copied'),
        });
        expect(copy.code, copy.stderr).toBe(0);
        expect(copy.stdout + copy.stderr).not.toContain(pg.password);
        // a machine of the fleet now answers that key from the shared journal: not charged again
        const fleet = await j.sandbox().cli(recharge, { CARDCTL_JOURNAL_URL: url });
        expect(fleet.code, fleet.stderr).toBe(0);
        expect(await cardBalance(j.mock, card.id)).toBe(balance);
      } finally {
        await pg.stop();
      }
    },
    60_000,
  );
});
