// Shared behaviour of every command: `--json`, error rendering, exit codes. Lives outside
// src/commands because nothing may import commands.
import { Command, Flags } from '@oclif/core';
import { renderError } from './render-error.js';

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

  protected override async catch(err: Error): Promise<void> {
    process.exitCode = renderError(err, this.jsonOutput, this.id);
  }
}
