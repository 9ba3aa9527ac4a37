import { Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';
import { ROUTES } from '../../../contract/routes.js';

export default class MockFaultsAdd extends MockControlCommand {
  static override summary = 'Make the next calls of an operation fail, hang, drop or turn asynchronous.';
  static override description =
    'OPERATION is issue, recharge, terminate, any, or an operation name (customers.get, cards.freeze, ...). ' +
    'KIND: 503 and 500 answer before anything is done; 500_after_commit does it and answers 500; drop does it and closes the connection without an answer; ' +
    'slow answers after --ms milliseconds; async_202 (money operations) and issue_failed (issue only). ' +
    'Money operations take the fault once every business check passed; the others once the request passed the gateway. A combination that cannot happen is refused (422).';
  static override examples = [
    '<%= config.bin %> mock faults add --operation issue --kind async_202',
    '<%= config.bin %> mock faults add --operation customers.get --kind 500',
    '<%= config.bin %> mock faults add --operation any --kind slow --ms 2000 --count 3',
  ];
  static override flags = {
    operation: Flags.string({
      description: 'which calls',
      options: ['issue', 'recharge', 'terminate', 'any', ...ROUTES.map((r) => r.operation)],
      required: true,
    }),
    kind: Flags.string({
      description: 'what they answer',
      options: ['503', '500', '500_after_commit', 'drop', 'slow', 'async_202', 'issue_failed'],
      required: true,
    }),
    ms: Flags.integer({
      description: 'with --kind slow: the delay before answering, in ms (1 to 60000)',
      min: 1,
      max: 60_000,
    }),
    count: Flags.integer({ description: 'how many calls', default: 1, min: 1 }),
    merchant: Flags.string({ description: 'only this merchant (default: any)' }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockFaultsAdd);
    return this.render(
      await this.control(flags, 'POST', '/faults', {
        operation: flags.operation,
        kind: flags.kind,
        count: flags.count,
        ms: flags.ms,
        merchant_id: flags.merchant,
      }),
    );
  }
}
