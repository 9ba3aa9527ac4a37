import { Flags } from '../../cli/oclif.js';
import type { StreamResult } from '../../output/stream.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class MockStart extends BaseCommand {
  static override summary = 'Start the embedded mock of the Card Issuing API.';
  static override description =
    'A stateful mock of every operation of the API, with the gateway of SIGNING.md, test and live modes, a simulated clock and a control plane (/_mock, bearer token).\n' +
    'With --json the first stdout line is the banner: base_url, control_url, control_token, merchant_id, keys, webhook_secret, products, networks.\n' +
    'The control commands (`cardctl mock state`, `mock clock advance`, ...) find it through the record it writes into the config folder (mocks/<pid>.json; with several mocks running, the newest).';
  static override examples = [
    '<%= config.bin %> mock start --save-profiles',
    '<%= config.bin %> mock start --port 0 --json --seed 7 > banner.json',
    '<%= config.bin %> mock start --state ./mock-state.json --webhook http://127.0.0.1:9000/hooks',
    '<%= config.bin %> mock start --log --request-log 1000',
    '<%= config.bin %> mock start --console',
  ];
  static override flags = {
    host: Flags.string({ description: 'address to listen on', default: '127.0.0.1' }),
    port: Flags.integer({ description: 'port (0 picks a free one)', default: 4010, min: 0, max: 65535 }),
    state: Flags.string({
      description: 'keep the whole state in this file (checksummed, locked, reloaded on start; docs/mock-state.md)',
    }),
    recover: Flags.boolean({
      description: 'with --state: salvage a damaged state up to the damage; the damaged files are kept aside',
      default: false,
    }),
    seed: Flags.integer({ description: 'seed for the ids, keys and secrets of the start (same seed, same banner)' }),
    'save-profiles': Flags.boolean({
      description: 'save profiles mock-test and mock-live for this mock',
      default: false,
    }),
    webhook: Flags.string({
      description: 'webhook endpoint URL for the default merchant (repeatable)',
      multiple: true,
    }),
    'rate-limit': Flags.integer({ description: 'requests per minute per key', min: 1 }),
    'request-log': Flags.integer({
      description: 'how many answered requests the request log keeps (0 turns it off; `cardctl mock requests`)',
      default: 10000,
      min: 0,
      max: 1000000,
    }),
    log: Flags.boolean({
      description: 'print each request on stderr as it is answered, with the diagnosis of a refusal',
      default: false,
    }),
    console: Flags.boolean({
      description: "serve the web console on the mock's port; its login address (a one-time code) is printed on stderr",
      default: false,
    }),
  };

  async run(): Promise<StreamResult> {
    const { flags } = await this.parse(MockStart);
    if (flags.recover && flags.state === undefined) {
      const { usageError } = await import('../../errors.js');
      throw usageError(
        '--recover applies to a state file: give --state FILE too.',
        'e.g. `cardctl mock start --state ./mock-state.json --recover`',
      );
    }
    const { launchMock } = await import('../../cli/mock/launcher.js');
    return launchMock(
      {
        host: flags.host,
        port: flags.port,
        stateFile: flags.state,
        recover: flags.recover,
        seed: flags.seed,
        saveProfiles: flags['save-profiles'],
        webhookUrls: flags.webhook ?? [],
        rateLimit: flags['rate-limit'],
        json: flags.json,
        requestLog: flags['request-log'],
        log: flags.log,
        console: flags.console,
      },
      { stderr: this.io.stderr, env: process.env },
    );
  }
}
