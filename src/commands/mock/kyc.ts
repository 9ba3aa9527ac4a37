import { Args, Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockKyc extends MockControlCommand {
  static override summary = 'Force the KYC verdict of a customer.';
  static override examples = ['<%= config.bin %> mock kyc 01J... --verdict rejected --reason document_unreadable'];
  static override args = {
    customer: Args.string({ description: 'customer id', required: true }),
  };
  static override flags = {
    verdict: Flags.string({ description: 'approved or rejected', options: ['approved', 'rejected'], required: true }),
    reason: Flags.string({ description: 'rejection label, e.g. document_unreadable' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockKyc);
    return this.render(
      await this.control(flags, 'POST', `/customers/${encodeURIComponent(args.customer)}/kyc`, {
        verdict: flags.verdict,
        reason: flags.reason,
      }),
    );
  }
}
