import { Args, Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { alertStream } from '../../io.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class WebhooksTest extends BaseCommand {
  static override summary =
    'Grade a webhook receiver: every event type accepted, every forged or stale delivery refused.';
  static override description =
    "Posts real deliveries to URL, signed with the endpoint secret (CARDCTL_WEBHOOK_SECRET, else the profile's webhook secret; never a flag), " +
    "with the spec's headers and body. Must be accepted (2xx): one delivery of each of the 12 event types, a header with two v1 values of which one is valid, " +
    'a header with unknown items and extra spaces. Must be refused (any non-2xx): the body changed by one byte, another secret, t 301 s in the past or future, ' +
    'no signature header, a malformed header, the body re-serialized under the original signature, uppercase hex. A 3xx is not followed (a failed delivery); ' +
    'no answer within --timeout fails the case. The same delivery id sent twice is reported as information.\n' +
    'http only for a loopback host, https elsewhere. Exit 0 when every case is as expected, 3 otherwise (2 for bad input). ' +
    '--junit FILE writes JUnit XML; with GITHUB_ACTIONS=true each failure is also an ::error:: annotation on stderr.';
  static override examples = [
    '<%= config.bin %> webhooks test http://localhost:3000/webhooks',
    'CARDCTL_WEBHOOK_SECRET="$WEBHOOK_SECRET" <%= config.bin %> webhooks test https://staging.example.com/webhooks --junit reports/webhooks.xml',
    '<%= config.bin %> webhooks test http://127.0.0.1:8080/hook --timeout 5 --json | jq \'.cases[] | select(.status == "failed")\'',
  ];
  static override args = {
    url: Args.string({
      description: 'the receiver: https://..., or http://localhost:PORT/... for a local one',
      required: true,
    }),
  };
  static override flags = {
    junit: Flags.string({ description: 'also write the report as JUnit XML to this file' }),
    timeout: Flags.string({
      description: "seconds to wait for each answer (at most 15, the service's limit)",
      default: '15',
    }),
    profile: Flags.string({ char: 'p', description: 'profile whose webhook secret to use' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(WebhooksTest);
    const [{ runWebhookTest }, { caseReport, checkJunitPath }, { EXIT, exitCodeForKind }, { formatWebhookTest }] =
      await Promise.all([
        import('../../cli/webhook-test/index.js'),
        import('../../cli/case-output.js'),
        import('../../cli/exit-codes.js'),
        import('../../output/webhook-test.js'),
      ]);
    checkJunitPath(flags.junit);
    const report = await runWebhookTest(
      { url: args.url, timeout: flags.timeout, profile: flags.profile },
      { env: process.env },
    );
    return caseReport(report, {
      stderr: alertStream(this.io), // CI's annotations and a failed JUnit write show under --quiet too
      junit: flags.junit,
      env: process.env,
      text: (chalk) => formatWebhookTest(report, chalk),
      exitCode: report.ok ? EXIT.ok : exitCodeForKind('signature_invalid'), // 3: a receiver that verifies wrongly
    });
  }
}
