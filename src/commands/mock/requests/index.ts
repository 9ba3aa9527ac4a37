import { Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import type { StreamResult } from '../../../output/stream.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockRequests extends MockControlCommand {
  static override summary = "Show the mock's request log: one line per request, each refusal with its diagnosis.";
  static override description =
    'The requests the mock answered, oldest first like a log tail (the last 20 unless --limit), each refusal with a diagnosis that says what to change. ' +
    '--follow keeps printing new ones until Ctrl-C. `mock requests show ID` prints a whole record. docs/mock-requests.md';
  static override examples = [
    '<%= config.bin %> mock requests --failed',
    '<%= config.bin %> mock requests --limit 100 --ndjson > requests.ndjson',
    '<%= config.bin %> mock requests --failed --follow',
  ];
  static override flags = {
    failed: Flags.boolean({
      description: 'only refused or failed requests (status 400 and above, dropped ones)',
      default: false,
    }),
    limit: Flags.integer({ description: 'how many of the newest to show (1 to 1000)', default: 20, min: 1, max: 1000 }),
    follow: Flags.boolean({
      description:
        'keep printing new requests as they are answered, until Ctrl-C; requests the log dropped before they were read are counted on stderr, never skipped silently',
      default: false,
    }),
    ndjson: Flags.boolean({ description: 'one JSON record per line', default: false, exclusive: ['json'] }),
    status: Flags.string({ description: 'only these statuses: a class (4xx) or a code (401), comma-separated' }),
    path: Flags.string({ description: 'only paths starting with this (e.g. /api/v1/cards)' }),
    key: Flags.string({ description: 'only requests with this key id' }),
  };

  async run(): Promise<Result | StreamResult> {
    const { flags } = await this.parse(MockRequests);
    const { showRequests } = await import('../../../cli/mock/requests.js');
    return showRequests(
      flags,
      (method, path) => this.controlPage(flags, method, path),
      this.jsonOutput ? 'json' : flags.ndjson ? 'ndjson' : 'text',
    );
  }
}
