import { journalFlag } from '../../cli/api-flags.js';
import { Flags } from '../../cli/oclif.js';
import { BaseCommand } from '../../cli/base-command.js';
import type { JournalEntry } from '../../client/journal.js';
import type { Result } from '../../output/render.js';

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
    ...journalFlag,
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

  async run(): Promise<Result> {
    const { flags } = await this.parse(OpsList);
    const [{ scanOps, moreAfter, parseWindow, DEFAULT_OPS_LIMIT }, { opView, damageNotes }, { listResult }] =
      await Promise.all([
        import('../../client/ops-query.js'),
        import('../../client/ops.js'),
        import('../../output/render.js'),
      ]);
    const q = {
      unresolved: flags.unresolved,
      limit: flags.all ? undefined : (flags.limit ?? DEFAULT_OPS_LIMIT),
      ...parseWindow(flags.since, flags.until),
      card: flags.card,
      key: flags.key,
      tell: (line: string) => this.note(line),
      journal: flags.journal,
    };
    if (flags.all) (await import('../../client/heap.js')).keepHeapSmall(); // a million operations, each alive a page long
    const scan = scanOps(q);
    let more: number | 'some' = 0;
    let damage: string[] = [];
    /** the journal's operations as the renderer pulls them, one at a time (--ndjson --all: constant memory) */
    async function* operations(): AsyncGenerator<{ data: JournalEntry[]; meta?: Record<string, unknown> }> {
      let n = 0;
      while (q.limit === undefined || n < q.limit) {
        const next = await scan.entries.next();
        if (next.done) break;
        n++;
        yield { data: [next.value] };
      }
      more = q.limit !== undefined && n === q.limit ? await moreAfter(q, n, scan.entries) : 0;
      damage = await damageNotes({ journal: flags.journal });
      // the list shape of every list (docs/output.md): the journal has no cursor, --limit N or --all shows more
      yield { data: [], meta: { has_more: more !== 0 } };
    }
    return listResult({
      kind: 'list',
      pages: operations(),
      format: flags.ndjson ? 'ndjson' : flags.json ? 'json' : 'table',
      view: opView,
      table: async (rows: readonly JournalEntry[], stream) =>
        (await import('../../output/ops.js')).formatOps(rows, stream),
      empty: flags.unresolved
        ? 'No operation with an unknown outcome.'
        : filtered(flags)
          ? 'No operation matches.'
          : 'No money operation recorded yet.',
      notes: () => [
        ...(more === 'some'
          ? ['More operations match: --limit N or --all shows them.']
          : more > 0
            ? [`${more} more operation${more === 1 ? '' : 's'}: --limit N or --all shows them.`]
            : []),
        ...damage,
      ],
    });
  }
}

/** Whether a filter other than --unresolved narrows the list (an empty answer then says so). */
function filtered(flags: { since?: string; until?: string; card?: string; key?: string }): boolean {
  return flags.since !== undefined || flags.until !== undefined || flags.card !== undefined || flags.key !== undefined;
}
