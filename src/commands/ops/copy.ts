import { journalFlag } from '../../cli/api-flags.js';
import { Flags } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsCopy extends BaseCommand {
  static override summary = 'Copy every operation of this journal into another one (a shared PostgreSQL journal, say).';
  static override description =
    'Every operation and what was learned after it (answers, resolutions) is copied, a page at a time, each page one transaction in the other journal. ' +
    'Running it again copies nothing twice: an operation already there (by its id) and a record already there are kept once. ' +
    'The journal copied from is left as it is. Afterwards point every machine at the other journal (--journal, CARDCTL_JOURNAL_URL). ' +
    '`ops list --all --ndjson` stays the export to a file.';
  static override examples = [
    'PGPASSWORD=... <%= config.bin %> ops copy --to postgres://cardctl@db.internal:5432/payments',
    '<%= config.bin %> ops copy --journal postgres://cardctl@db.internal/payments --to local',
  ];
  static override flags = {
    ...journalFlag,
    to: Flags.string({
      description:
        "the journal to copy into: a PostgreSQL URL (the password in PGPASSWORD), `local` (this machine's file), or the absolute path of another journal file",
      required: true,
    }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(OpsCopy);
    const { copyOps } = await import('../../client/ops.js');
    (await import('../../client/heap.js')).keepHeapSmall(); // a million operations, each alive a page long
    const r = await copyOps({ journal: flags.journal, to: flags.to, tell: (line) => this.note(line) });
    return result(
      r,
      () =>
        `Copied ${r.operations} operation${r.operations === 1 ? '' : 's'} from ${r.from} into ${r.to}: ${r.added} new there, ${r.operations - r.added} already there.\n`,
    );
  }
}
