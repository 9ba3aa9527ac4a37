import { journalFlag } from '../../cli/api-flags.js';
import { terminalSafeLine } from '../../terminal-text.js';
import { Flags } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsVerify extends BaseCommand {
  static override summary = "Check the journal's database, and show what an older journal's takeover could not read.";
  static override description =
    "Runs SQLite's own check of the journal's database file (PRAGMA quick_check: every page and index entry); of a shared journal, that the server answers and its tables are there. " +
    'Lines of an older file journal that could not be read when it was taken over are shown: money commands refuse until you have checked them ' +
    'and run `cardctl ops verify --discard-unreadable`. Exit 1 when the database is damaged.';
  static override examples = ['<%= config.bin %> ops verify', '<%= config.bin %> ops verify --discard-unreadable'];
  static override flags = {
    ...journalFlag,
    'discard-unreadable': Flags.boolean({
      description:
        'after checking them, set aside the unreadable lines of an older journal (money commands then go again)',
      default: false,
    }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(OpsVerify);
    const { verifyOps } = await import('../../client/ops.js');
    const r = await verifyOps({
      discardUnreadable: flags['discard-unreadable'],
      journal: flags.journal,
      tell: (line) => this.note(line),
    });
    const exitCode = r.ok ? 0 : 1;
    if (flags.json) return { ...result(r), exitCode };
    const lines: string[] = [];
    for (const c of r.ok ? [] : r.check) lines.push(`damaged: ${terminalSafeLine(c)}\n`);
    for (const u of r.unreadable)
      lines.push(
        `unreadable line of the older journal (${terminalSafeLine(u.source)}, ${u.why}): ${terminalSafeLine(u.text)}\n`,
      );
    const notes: string[] = [];
    if (r.unreadable.length && !r.discarded)
      notes.push(
        `These ${r.unreadable.length} lines cannot be read: an operation in them could be charged again if sent with its key. Check them (\`cardctl cards get ID\`, the portal), then run \`cardctl ops verify --discard-unreadable\`.`,
      );
    if (r.discarded)
      notes.push(`Set aside ${r.discarded} unreadable line${r.discarded === 1 ? '' : 's'}; money commands go again.`);
    notes.push(
      r.ok
        ? `The journal ${r.file} is sound: SQLite's check found nothing wrong (${r.operations} operations).`
        : `The journal ${r.file} is damaged: restore it from a backup, or move it aside (a new journal knows nothing of earlier sends: check the cards' balances before sending again).`,
    );
    return { ...result(r, () => lines.join(''), notes), exitCode };
  }
}
