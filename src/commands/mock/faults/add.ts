import { Flags } from '../../../cli/oclif.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockFaultsAdd extends MockControlCommand {
  static override summary = 'Make the next calls of an operation fail or turn asynchronous.';
  static override examples = ['<%= config.bin %> mock faults add --operation issue --kind async_202'];
  static override flags = {
    operation: Flags.string({ description: 'operation', options: ['issue', 'recharge', 'terminate', 'any'], required: true }),
    kind: Flags.string({ description: 'what they answer', options: ['503', '500_after_commit', 'async_202', 'issue_failed'], required: true }),
    count: Flags.integer({ description: 'how many calls', default: 1, min: 1 }),
    merchant: Flags.string({ description: 'only this merchant (default: any)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(MockFaultsAdd);
    await this.render(await this.control(flags, 'POST', '/faults', { operation: flags.operation, kind: flags.kind, count: flags.count, merchant_id: flags.merchant }));
  }
}
