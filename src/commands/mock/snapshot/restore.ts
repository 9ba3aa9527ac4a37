import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockSnapshotRestore extends MockControlCommand {
  static override summary = 'Put the mock back to a saved snapshot (its simulated clock included); takes milliseconds.';
  static override examples = ['<%= config.bin %> mock snapshot restore prepared'];
  static override args = {
    name: Args.string({ description: 'name of a saved snapshot (see mock snapshot list)', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockSnapshotRestore);
    return this.render(await this.control(flags, 'POST', `/snapshots/${encodeURIComponent(args.name)}/restore`));
  }
}
