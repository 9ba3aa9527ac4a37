import { Flags } from '../cli/oclif.js';
import type { Result } from '../output/render.js';
import { alertStream } from '../io.js';
import { BaseCommand } from '../cli/base-command.js';

export default class Smoke extends BaseCommand {
  static override summary =
    'End-to-end smoke test of an integration on a test (sandbox) key, for CI: one case per step, JUnit XML.';
  static override description =
    "Cases: setup (doctor's checks: credentials, reach, clock skew, key, mode, scopes); signing (a request signed with a wrong secret gets 401 invalid_signature, a nonce sent twice 409 replay_detected); " +
    "customers (create one and read it until approved, get it, list with per_page=1 and follow next_cursor once); cards (issue at the default product's minimum with a fresh idempotency key, " +
    'the same key and body replay the same card, the same key with another body 422 payload_mismatch, recharge 1, freeze, unfreeze, transactions, terminate refused while new ' +
    '(422 termination_blocked) or done where allowed, frozen again at the end); funding (deposit addresses and deposits refused 403 for a test key).\n' +
    'A live key is refused before anything is sent (exit 2). At most 30 requests, retries after 429/503 (Retry-After) included. A failed case says what was expected, what came back, ' +
    'and the exchange as --verbose shows it (never the secret). The customer and card it created are named at the end.\n' +
    'Exit 0 when every case passed, otherwise the exit code of the first failure (3 key, clock or signing, 5 a business rule, 6 rate limited, 8 unreachable, ...). ' +
    '--junit FILE writes JUnit XML; with GITHUB_ACTIONS=true each failure is also an ::error:: annotation on stderr. --mock runs it against an embedded mock.';
  static override examples = [
    '<%= config.bin %> smoke --mock',
    '<%= config.bin %> smoke -p sandbox --junit reports/smoke.xml',
    'CARDCTL_API_KEY="$KEY_ID" CARDCTL_API_SECRET="$SECRET" CARDCTL_BASE_URL=https://sandbox.example.com/api/v1 <%= config.bin %> smoke --json | jq .created',
  ];
  static override flags = {
    profile: Flags.string({
      char: 'p',
      description:
        'profile with a test key (default: CARDCTL_API_KEY/SECRET, CARDCTL_PROFILE, then the default profile)',
    }),
    junit: Flags.string({ description: 'also write the report as JUnit XML to this file' }),
    timeout: Flags.string({
      description:
        "seconds each request may take, connect to the last byte (default: CARDCTL_TIMEOUT, then the profile's timeout, then 30)",
    }),
    mock: Flags.boolean({
      description: 'run against an embedded mock on a free loopback port (no credentials needed)',
      default: false,
    }),
    amount: Flags.integer({
      description:
        "initial load of the card, in minor units: your default product's minimum (default 100; with --mock, the mock's)",
      min: 0,
      max: 100_000_000,
    }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(Smoke);
    const [{ caseReport, checkJunitPath }, { EXIT, exitCodeForKind }, { formatSmoke }, { usageError }] =
      await Promise.all([
        import('../cli/case-output.js'),
        import('../cli/exit-codes.js'),
        import('../output/smoke.js'),
        import('../errors.js'),
      ]);
    checkJunitPath(flags.junit);
    // checked here rather than with oclif's `exclusive`, whose message quotes the -p value (which could be a pasted secret)
    if (flags.mock && flags.profile !== undefined)
      throw usageError(
        "--mock runs with the embedded mock's own test key: leave out -p/--profile.",
        "Or drop --mock to test the profile's integration.",
      );
    const report = flags.mock
      ? await (await import('../cli/smoke-mock.js')).smokeAgainstMock(
          { amount: flags.amount, timeout: flags.timeout },
          { note: (l) => this.note(l) },
        )
      : await (await import('../client/smoke/index.js')).smoke({
          profile: flags.profile,
          amount: flags.amount,
          timeout: flags.timeout,
        });
    const failed = report.cases.find((c) => c.status === 'failed');
    return caseReport(report, {
      stderr: alertStream(this.io), // CI's annotations and a failed JUnit write show under --quiet too
      junit: flags.junit,
      env: process.env,
      text: (chalk) => formatSmoke(report, chalk),
      exitCode: failed ? exitCodeForKind(failed.kind ?? 'unexpected') : EXIT.ok,
    });
  }
}
