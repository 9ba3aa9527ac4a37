import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockSnapshotSave extends MockControlCommand {
  static override summary = 'Save a copy of the whole mock state under a name (replacing one of that name).';
  static override description =
    'A test suite saves its prepared state once and restores it before each test. With --state the snapshot is a file beside the state file (FILE.snapshots/NAME.json) and survives a restart; without, it lives as long as the mock.';
  static override examples = [
    '<%= config.bin %> mock snapshot save prepared',
    '<%= config.bin %> mock snapshot save before-refunds --json',
  ];
  static override args = {
    name: Args.string({
      description: 'snapshot name: 1 to 64 letters, digits, dots, underscores or dashes',
      required: true,
    }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockSnapshotSave);
    return this.render(await this.control(flags, 'POST', '/snapshots', { name: args.name }));
  }
}
