import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockSnapshotList extends MockControlCommand {
  static override summary = 'List the saved snapshots of the mock state.';
  static override examples = ['<%= config.bin %> mock snapshot list', '<%= config.bin %> mock snapshot list --json'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockSnapshotList);
    return this.renderList(await this.controlPage(flags, 'GET', '/snapshots'));
  }
}
