import { Flags } from '../cli/oclif.js';
import { outcome, result, type Result } from '../output/render.js';
import { BaseCommand } from '../cli/base-command.js';
import { exitCodeFor } from '../cli/exit-codes.js';
import { CardctlError } from '../errors.js';

export default class Demo extends BaseCommand {
  static override summary = 'A guided tour of every capability, against an embedded mock (also a smoke test).';
  static override description =
    'Starts the mock in this process on a free loopback port, uses a temporary config and state folder (your profiles and journal are not touched), ' +
    'and runs each command as you would type it, showing the command line and its output. Every step checks its exit code and the value it promises; ' +
    'the demo exits 1 naming the first step that deviates.\n' +
    'The section on a journal shared by a fleet needs a PostgreSQL: CARDCTL_DEMO_JOURNAL_URL=postgres://USER@HOST/DB names a server of yours (the password in PGPASSWORD; ' +
    'a new database is made for the run and dropped at the end), else the demo starts a throwaway server from PostgreSQL 15+ binaries when installed and stops it at the end; ' +
    'without either (or with CARDCTL_DEMO_JOURNAL_URL=off) that section is skipped, saying so in one line.\n' +
    '--json prints the tour on stderr and one summary on stdout: {ok, failed_step, steps: [{name, command, exit_code, ok}], skipped: [{section, reason, how_to_see}], ...}.';
  static override examples = [
    '<%= config.bin %> demo',
    '<%= config.bin %> demo --keep',
    '<%= config.bin %> demo --json --seed 42 2>/dev/null | jq .steps',
  ];
  static override flags = {
    keep: Flags.boolean({
      description:
        'keep the temporary folder (profiles, journal, data files) and print its path; and the database made on a server of yours (CARDCTL_DEMO_JOURNAL_URL)',
      default: false,
    }),
    seed: Flags.integer({ description: 'seed of the mock: the same seed gives the same ids and secrets', min: 0 }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(Demo);
    const { runDemo } = await import('../demo/index.js');
    // The tour is shown as it runs (each step's command line and output, live): it is the
    // demo's work made visible, written where it is asked for, not a result to print at the end.
    // The result is the summary: the one JSON value with --json; for people the tour said it all.
    const summary = await runDemo({
      keep: flags.keep,
      seed: flags.seed,
      out: flags.json ? this.io.stderr : this.io.stdout,
    });
    if (summary.ok) return result(summary, () => '');
    const err = new CardctlError(
      summary.failed_step
        ? `the demo failed at step "${summary.failed_step}": ${summary.message}.`
        : `the demo stopped: ${summary.message}.`,
      {
        kind: 'unexpected',
        hint: summary.failed_step
          ? 'The step above shows the command, its output and what was expected. Rebuild (`npm run build`) if the code changed.'
          : 'No step failed: the demo could not have what it needs (the message names it). Fix that and run it again; rebuild (`npm run build`) if the code changed.',
      },
    );
    if (!flags.json) throw err;
    // one JSON value on stdout: the summary says what failed
    return outcome(result(summary), { exitCode: exitCodeFor(err) });
  }
}
