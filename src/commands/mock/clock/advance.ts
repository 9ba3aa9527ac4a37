import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';
import { usageError } from '../../../errors.js';

export default class MockClockAdvance extends MockControlCommand {
  static override summary = 'Move the simulated clock forward and run what falls due (KYC verdicts, expiry).';
  static override examples = ['<%= config.bin %> mock clock advance 3600'];
  static override args = {
    seconds: Args.string({ description: 'seconds to move forward', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockClockAdvance);
    const seconds = Number(args.seconds);
    if (!Number.isFinite(seconds) || seconds < 0)
      throw usageError(
        'SECONDS must be a number of seconds, 0 or more (e.g. 3600).',
        'See `cardctl mock clock advance --help`.',
      );
    return this.render(await this.control(flags, 'POST', '/clock/advance', { seconds }));
  }
}
