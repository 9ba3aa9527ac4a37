// Shared shape of the `cardctl mock <control>` commands: find the mock, make one control call,
// print the data (`--json`: as JSON; otherwise a readable block). Lives outside src/commands
// because nothing may import commands.
import { Flags } from '@oclif/core';
import { BaseCommand } from '../base-command.js';

export abstract class MockControlCommand extends BaseCommand {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    'control-url': Flags.string({ description: 'control URL of the mock (default: CARDCTL_MOCK_URL, then the mock.json of `mock start`)', helpGroup: 'MOCK' }),
  };

  // The token is never a flag (it would land in shell history): CARDCTL_MOCK_TOKEN or mock.json.
  protected async control(flags: { 'control-url'?: string; json?: boolean }, method: string, path: string, body?: unknown): Promise<unknown> {
    this.jsonOutput = Boolean(flags.json);
    const { resolveControl, callControl } = await import('./control-client.js');
    const target = await resolveControl({ controlUrl: flags['control-url'] });
    return callControl(target, method, path, body);
  }

  protected render(data: unknown): void {
    if (this.jsonOutput) return this.printJson(data);
    process.stdout.write(readable(data));
  }
}

const scalar = (v: unknown): string => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Key-value lines for an object, one line per item for a list. */
export function readable(data: unknown): string {
  if (Array.isArray(data)) {
    if (data.length === 0) return '(none)\n';
    return data.map((row) => (row && typeof row === 'object' ? Object.entries(row).map(([k, v]) => `${k}=${scalar(v)}`).join('  ') : scalar(row))).join('\n') + '\n';
  }
  if (data && typeof data === 'object') {
    const entries = Object.entries(data);
    const width = Math.max(...entries.map(([k]) => k.length));
    return entries.map(([k, v]) => `${k.padEnd(width)}  ${scalar(v)}`).join('\n') + '\n';
  }
  return scalar(data) + '\n';
}
