import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockConsole extends MockControlCommand {
  static override summary = "The address of the running mock's web console, with a new one-time login code.";
  static override description =
    "Open the address in a browser on this machine: the code (good once, for 10 minutes) is exchanged for a session cookie and taken out of the address bar. The console is served from the mock's own port from then on (docs/mock-console.md).";
  static override examples = ['<%= config.bin %> mock console', '<%= config.bin %> mock console --jq .login_url'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockConsole);
    return this.render(await this.control(flags, 'POST', '/console'));
  }
}
