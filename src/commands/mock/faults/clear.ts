import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockFaultsClear extends MockControlCommand {
  static override summary = 'Remove an armed fault before it is used up, or every fault.';
  static override examples = ['<%= config.bin %> mock faults clear', '<%= config.bin %> mock faults clear 01J...'];
  static override args = {
    fault: Args.string({ description: 'fault id (`cardctl mock faults` lists them); none: every fault' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockFaultsClear);
    const path = args.fault === undefined ? '/faults' : `/faults/${encodeURIComponent(args.fault)}`;
    return this.renderList(await this.controlPage(flags, 'DELETE', path));
  }
}
