import { Flags } from '../cli/oclif.js';
import { outcome, result, type Result } from '../output/render.js';
import { BaseCommand } from '../cli/base-command.js';
import { journalFlag } from '../cli/api-flags.js';

export default class Doctor extends BaseCommand {
  static override summary =
    'Check what a call needs: credentials, journal, reach and latency, clock skew, key, mode, scopes.';
  static override description =
    'Every probe is a request the API cannot act on (reads, writes on an id that does not exist, a body it refuses), so it is safe with a live key. ' +
    'Exit 0 when nothing failed (warnings allowed), otherwise the exit code of the first failure (3 key or clock, 8 unreachable, 2 configuration).';
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor -p prod --json | jq \'.checks[] | select(.status != "ok")\'',
  ];
  static override flags = {
    profile: Flags.string({
      char: 'p',
      description: 'profile to check (default: CARDCTL_API_KEY/SECRET, CARDCTL_PROFILE, then the default profile)',
    }),
    'ca-file': Flags.string({
      description:
        "PEM file of CA certificates to trust in addition to the system's (default: CARDCTL_CA_FILE, then the profile's ca_file)",
    }),
    verbose: Flags.boolean({ char: 'v', description: 'print each probe on stderr (never the secret)', default: false }),
    timeout: Flags.string({
      description: "seconds each probe may take (default: CARDCTL_TIMEOUT, then the profile's timeout, then 10)",
    }),
    ...journalFlag,
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(Doctor);
    const [{ doctor }, { exitCodeForKind }, { formatDoctor }] = await Promise.all([
      import('../client/doctor.js'),
      import('../cli/exit-codes.js'),
      import('../output/doctor.js'),
    ]);
    const report = await doctor({
      profile: flags.profile,
      verbose: flags.verbose,
      caFile: flags['ca-file'],
      journal: flags.journal,
      timeout: flags.timeout,
      io: this.io,
    });
    const failed = report.checks.find((c) => c.status === 'fail');
    return outcome(
      result(report, (out) => formatDoctor(report, out)),
      { exitCode: failed ? exitCodeForKind(failed.kind ?? 'unexpected') : undefined },
    );
  }
}
