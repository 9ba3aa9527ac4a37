// Shared behaviour of every command: `--json`, error rendering, exit codes. Lives outside
// src/commands because nothing may import commands.
import { Command, Flags } from '@oclif/core';
import { CardctlError } from '../errors.js';
import { errorJson, exitCodeFor } from './exit-codes.js';

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'print one JSON value on stdout (errors too)', default: false }),
  };

  /** Set by subclasses right after parsing, so that `catch` knows how to render. */
  protected jsonOutput = process.argv.includes('--json');

  protected printJson(value: unknown): void {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  protected note(message: string): void {
    process.stderr.write(message + '\n');
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<void> {
    const code = exitCodeFor(err);
    if (this.jsonOutput) {
      process.stdout.write(JSON.stringify(errorJson(err)) + '\n');
    } else if (err instanceof CardctlError) {
      process.stderr.write(`Error: ${err.message}\n`);
      for (const [field, messages] of Object.entries(err.errors)) {
        if (Array.isArray(messages)) for (const m of messages) process.stderr.write(`  ${field}: ${String(m)}\n`);
      }
      if (err.hint) process.stderr.write(`${err.hint}\n`);
    } else if (code === 2) {
      // oclif parse errors carry a usable message; show it without a stack
      process.stderr.write(`Error: ${err.message}\nSee \`cardctl ${this.id ?? ''} --help\`.\n`);
    } else {
      process.stderr.write(`Error: ${err.message}\n`);
      if (process.env.CARDCTL_DEBUG) process.stderr.write(`${err.stack ?? ''}\n`);
    }
    process.exitCode = code;
  }
}
