import { terminalSafeLine } from '../../terminal-text.js';
import { Flags } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsRepair extends BaseCommand {
  static override summary = 'Check the journal and rebuild damaged files from their second copy.';
  static override description =
    "Every record is held twice (its key bucket and its hour's segment) with a checksum per line: a damaged file is rebuilt from the other copy " +
    '(the damaged one is kept beside it as .damaged). Lines of an old operations.ndjson that could not be read when it was taken over have no second copy: ' +
    'they are shown, and money commands refuse until you have checked them and run `cardctl ops repair --discard-unreadable`. Safe while other cardctl processes send: lines they append meanwhile are kept.';
  static override examples = ['<%= config.bin %> ops repair', '<%= config.bin %> ops repair --discard-unreadable'];
  static override flags = {
    'discard-unreadable': Flags.boolean({
      description: 'after checking them, set aside the unreadable lines of an old file (money commands then go again)',
      default: false,
    }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(OpsRepair);
    const { repairOps } = await import('../../client/ops.js');
    const r = await repairOps({ discardUnreadable: flags['discard-unreadable'], tell: (line) => this.note(line) });
    if (flags.json) return result(r);
    const lines: string[] = [];
    for (const f of r.repaired)
      lines.push(
        `repaired ${f.file}: ${f.damaged} damaged line${f.damaged === 1 ? '' : 's'}, ${f.restored} record${f.restored === 1 ? '' : 's'} restored from the other copy${f.lost ? `, ${f.lost} not found in it` : ''}\n`,
      );
    for (const u of r.unreadable)
      lines.push(`unreadable line of the old file (byte ${u.offset}, ${u.why}): ${terminalSafeLine(u.text)}\n`);
    for (const f of r.completed)
      lines.push(
        `completed ${f.file}: ${f.restored} record${f.restored === 1 ? '' : 's'} it lacked, restored from the other copy\n`,
      );
    if (r.markers) lines.push(`set right ${r.markers} unresolved marker${r.markers === 1 ? '' : 's'} (unresolved/)\n`);
    // stderr after the report: what to do about unreadable lines, then what was checked
    const notes: string[] = [];
    if (r.unreadable.length && !r.discarded)
      notes.push(
        `These ${r.unreadable.length} lines cannot be read: an operation in them could be charged again if sent with its key. Check them (\`cardctl cards get ID\`, the portal), then run \`cardctl ops repair --discard-unreadable\`.`,
      );
    if (r.discarded)
      notes.push(`Set aside ${r.discarded} unreadable line${r.discarded === 1 ? '' : 's'}; money commands go again.`);
    notes.push(
      r.repaired.length || r.unreadable.length || r.completed.length || r.markers
        ? `Checked ${r.checked} files in ${r.dir}.`
        : `The journal ${r.dir} is sound: ${r.checked} files checked, every line's checksum matches.`,
    );
    return result(r, () => lines.join(''), notes);
  }
}
