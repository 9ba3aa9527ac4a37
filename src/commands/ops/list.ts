import { once } from 'node:events';
import { Flags } from '../../cli/oclif.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsList extends BaseCommand {
  static override summary = 'List the money operations recorded in the local journal, newest first.';
  static override description =
    'Each issue, recharge and terminate is recorded before it is sent and its outcome after. ' +
    '`--unresolved` shows those whose outcome is unknown (202, 500, dropped connection): replay them with `cardctl ops replay ID`, or record what you learned with `cardctl ops resolve ID`. ' +
    `The newest 20 by default (a line on stderr says how many more); \`--ndjson --all\` exports every operation, streamed.`;
  static override examples = [
    '<%= config.bin %> ops list --unresolved',
    '<%= config.bin %> ops list --since 2d --card 01JD2Q7N8V3K4M5P6R7S8T9V0W',
    '<%= config.bin %> ops list --all --ndjson > operations.ndjson',
  ];
  static override flags = {
    unresolved: Flags.boolean({ description: 'only operations whose outcome is unknown', default: false }),
    limit: Flags.integer({ description: 'at most this many, newest first (default 20)', min: 1, exclusive: ['all'] }),
    all: Flags.boolean({ description: 'every matching operation', default: false }),
    since: Flags.string({
      description: 'sent at or after: a duration back from now (90m, 2h, 3d, 1w) or a date (2026-11-24, ISO 8601)',
    }),
    until: Flags.string({ description: 'sent at or before: a duration back from now or a date' }),
    card: Flags.string({ description: 'only operations on this card (its id in the path or in the answer)' }),
    key: Flags.string({ description: 'only the sends of this idempotency key' }),
    ndjson: Flags.boolean({
      description: 'one JSON operation per line, streamed (constant memory with --all)',
      default: false,
      exclusive: ['json'],
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(OpsList);
    const [{ scanOps, moreAfter, parseWindow, DEFAULT_OPS_LIMIT }, { opView }, { listDocument }] = await Promise.all([
      import('../../client/ops-query.js'),
      import('../../client/ops.js'),
      import('../../output/json.js'),
    ]);
    const q = {
      unresolved: flags.unresolved,
      limit: flags.all ? undefined : (flags.limit ?? DEFAULT_OPS_LIMIT),
      ...parseWindow(flags.since, flags.until),
      card: flags.card,
      key: flags.key,
      tell: (line: string) => this.note(line),
    };
    const scan = scanOps(q);
    const shown = [];
    let n = 0;
    while (q.limit === undefined || n < q.limit) {
      const next = scan.entries.next();
      if (next.done) break;
      n++;
      if (!flags.ndjson) shown.push(next.value);
      else if (!this.io.stdout.write(JSON.stringify(opView(next.value)) + '\n')) await once(this.io.stdout, 'drain');
    }
    const more = q.limit !== undefined && n === q.limit ? moreAfter(q, n, scan.entries) : 0;
    // the list shape of every list (docs/output.md): the journal has no cursor, --limit N or --all shows more
    if (flags.json) this.printJson(listDocument(shown.map(opView), { has_more: more !== 0 }));
    else if (!flags.ndjson && n === 0)
      this.note(
        flags.unresolved
          ? 'No operation with an unknown outcome.'
          : filtered(flags)
            ? 'No operation matches.'
            : 'No money operation recorded yet.',
      );
    else if (!flags.ndjson) this.print(await (await import('../../output/ops.js')).formatOps(shown));
    if (more === 'some') this.note(`More operations match: --limit N or --all shows them.`);
    else if (more > 0) this.note(`${more} more operation${more === 1 ? '' : 's'}: --limit N or --all shows them.`);
    const { damageNotes } = await import('../../client/ops.js');
    for (const line of damageNotes(scan.damaged)) this.note(line);
  }
}

/** Whether a filter other than --unresolved narrows the list (an empty answer then says so). */
function filtered(flags: { since?: string; until?: string; card?: string; key?: string }): boolean {
  return flags.since !== undefined || flags.until !== undefined || flags.card !== undefined || flags.key !== undefined;
}
