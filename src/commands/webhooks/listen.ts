import { Flags } from '../../cli/oclif.js';
import type { StreamResult } from '../../output/stream.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class WebhooksListen extends BaseCommand {
  static override summary = 'Receive webhook deliveries on loopback: verify, print, and optionally forward them.';
  static override description =
    'Starts an HTTP server on loopback and verifies every POST over its raw body bytes with the endpoint signing secret ' +
    '(CARDCTL_WEBHOOK_SECRET, else the profile\'s webhook secret; never a flag). A valid delivery is answered 200 {"received":true}, ' +
    'an invalid one 400 with the reason (so the sender retries), anything but POST 405. One line per delivery on stdout.\n' +
    '--forward-to URL posts each verified delivery to your app with the raw body and Content-Type, X-Service-Event, X-Service-Delivery and ' +
    "X-Service-Signature unchanged (your app verifies it itself), and answers the sender with your app's status (502 when unreachable, 15 s timeout).\n" +
    '--mock registers the listener as a webhook endpoint of a running mock: --control-url, else the mock -p\'s profile points at, else CARDCTL_MOCK_URL, else the mock CARDCTL_PROFILE\'s profile points at, else the newest (exit 8 when that profile\'s address has no running mock). --json: the first stdout line is {"listening", "endpoint_id", "forward_to"}, ' +
    'then one JSON line per delivery: {"received_at", "delivery_id", "event", "valid", "reason", "type", "occurred_at", "data", "status", "forwarded_status"?, "forward_error"?}.\n' +
    'Exit 0 on SIGINT/SIGTERM; with --max-events N, after N deliveries: 0 when all verified, 3 when any did not.';
  static override examples = [
    '<%= config.bin %> webhooks listen --mock',
    '<%= config.bin %> webhooks listen --port 9000 --forward-to http://localhost:3000/webhooks',
    '<%= config.bin %> webhooks listen --mock --max-events 1 --json -p mock-test',
  ];
  static override flags = {
    json: Flags.boolean({
      description: 'NDJSON on stdout: a {"listening"} line, then one line per delivery (errors as one JSON value)',
      default: false,
    }),
    port: Flags.integer({ description: 'port to listen on (0 picks a free one)', default: 0, min: 0, max: 65535 }),
    host: Flags.string({ description: 'loopback address to listen on', default: '127.0.0.1' }),
    'forward-to': Flags.string({ description: 'forward each verified delivery, unchanged, to this URL' }),
    mock: Flags.boolean({
      description:
        'register the listener as a webhook endpoint of the running mock (the one -p or CARDCTL_PROFILE points at, if given)',
      default: false,
    }),
    'control-url': Flags.string({
      description:
        'control URL of the mock, with --mock (default: CARDCTL_MOCK_URL, then the newest mock `mock start` recorded)',
      helpGroup: 'MOCK',
    }),
    'max-events': Flags.integer({
      description: 'stop after this many deliveries (exit 3 if any failed verification)',
      min: 1,
    }),
    tolerance: Flags.integer({ description: 'allowed |now - t| in seconds', default: 300, min: 0 }),
    profile: Flags.string({
      char: 'p',
      description: 'profile whose webhook secret to use (with --mock: and whose mock to register on)',
    }),
  };

  async run(): Promise<StreamResult> {
    const { flags } = await this.parse(WebhooksListen);
    const { runListen } = await import('../../cli/webhook-listen/index.js');
    return runListen(
      {
        port: flags.port,
        host: flags.host,
        forwardTo: flags['forward-to'],
        mock: flags.mock,
        controlUrl: flags['control-url'],
        maxEvents: flags['max-events'],
        json: flags.json,
        profile: flags.profile,
        tolerance: flags.tolerance,
      },
      { stderr: this.io.stderr, env: process.env },
    );
  }
}
