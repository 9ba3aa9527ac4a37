import { journalFlag } from '../../cli/api-flags.js';
import { Flags } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsCompact extends BaseCommand {
  static override summary = 'Reduce resolved operations older than the retention to their key, identity and outcome.';
  static override description =
    'Money commands start this in the background once a day when operations have aged past the retention (CARDCTL_JOURNAL_RETENTION, 90 days by default; off turns that off). ' +
    'A compacted operation keeps what the 24-hour rule and `ops show` need (idempotency key, target, key id, body hash, time, outcome, resource id); its body and attempts are dropped. ' +
    'An operation whose outcome is unknown is kept whole. Safe while other cardctl processes send: each page of operations is compacted in a transaction of its own.';
  static override examples = ['<%= config.bin %> ops compact', '<%= config.bin %> ops compact --older-than 30d'];
  static override flags = {
    ...journalFlag,
    'older-than': Flags.string({
      description: 'retention in days (e.g. 30 or 30d; default CARDCTL_JOURNAL_RETENTION, else 90)',
    }),
    auto: Flags.boolean({ hidden: true, default: false }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(OpsCompact);
    const [{ compactOps }, { parseRetention }, { usageError }] = await Promise.all([
      import('../../client/ops.js'),
      import('../../client/retention.js'),
      import('../../errors.js'),
    ]);
    const days = flags['older-than'] === undefined ? undefined : parseRetention(flags['older-than'], '--older-than');
    if (flags['older-than'] !== undefined && days === undefined)
      throw usageError(
        '--older-than takes a number of days, such as 30 or 30d (off is for CARDCTL_JOURNAL_RETENTION).',
      );
    const r = await compactOps({ retentionDays: days, journal: flags.journal, tell: (line) => this.note(line) });
    if (flags.json) return result(r);
    const text = () =>
      `compacted ${r.compacted} operation${r.compacted === 1 ? '' : 's'} first sent before ${r.cutoff} (${r.retention_days} days) in ${r.file}\n` +
      (r.kept_unknown
        ? `kept whole: ${r.kept_unknown} operation${r.kept_unknown === 1 ? '' : 's'} whose outcome is unknown (\`cardctl ops list --unresolved\`)\n`
        : '');
    return result(r, text);
  }
}
