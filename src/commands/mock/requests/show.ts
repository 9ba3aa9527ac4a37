import { Args } from '../../../cli/oclif.js';
import { result, type Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';
import { usageError } from '../../../errors.js';

export default class MockRequestsShow extends MockControlCommand {
  static override summary = "Print one record of the mock's request log in full, with its diagnosis.";
  static override examples = [
    '<%= config.bin %> mock requests show req_42',
    '<%= config.bin %> mock requests show req_42 --json',
  ];
  static override args = {
    id: Args.string({ description: 'the request id (req_42), as `mock requests` shows it', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockRequestsShow);
    // an empty id asked the mock for `/requests/`, which answered the whole list, shown as one record
    if (args.id.trim() === '')
      throw usageError(
        'the request id is empty.',
        'Give one as `cardctl mock requests` shows it, e.g. `cardctl mock requests show req_42`.',
      );
    const record = await this.control(flags, 'GET', `/requests/${encodeURIComponent(args.id)}`);
    const { requestBlock } = await import('../../../cli/mock/request-lines.js');
    return result(record, () => requestBlock(record));
  }
}
