// Shared behaviour of every command: `--json`, error rendering, exit codes. Lives outside
// src/commands because nothing may import commands.
import type { Interfaces } from '@oclif/core';
import { Command, Flags } from './oclif.js';
import { renderError } from './render-error.js';
import { forbidPrompts } from '../no-input.js';

type Flags_ = { [name: string]: any }; // oclif's FlagOutput and ArgOutput, not exported by name
type Args_ = { [name: string]: any };

/**
 * The parser input with every argument and flag taken from the command line only. oclif fills a
 * missing argument from piped stdin (and a flag given as `-` with `allowStdin`): `printf "$SECRET" |
 * cardctl profiles add --secret-stdin ...` with the NAME forgotten turned the secret into the name
 * and printed it back in the refusal. Stdin belongs to the flags that say so (`--secret-stdin`,
 * `--data -`), which read it themselves. oclif reads the input's own properties and, by access,
 * `flags`, `baseFlags` and `enableJsonFlag` (Command.parse), so those are carried over explicitly.
 */
export function commandLineOnly<T extends Interfaces.Input<any, any, any>>(input: T): T {
  const args = Object.fromEntries(Object.entries(input.args ?? {}).map(([name, arg]) => [name, { ...arg, ignoreStdin: true }]));
  const noStdin = (flags: Record<string, any> | undefined) =>
    flags && Object.fromEntries(Object.entries(flags).map(([name, flag]) => [name, flag.type === 'option' ? { ...flag, allowStdin: false } : flag]));
  return { ...input, args, flags: noStdin(input.flags), baseFlags: noStdin(input.baseFlags), enableJsonFlag: input.enableJsonFlag } as T;
}

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'print one JSON value on stdout (errors too)', default: false }),
    'no-input': Flags.boolean({ description: 'never prompt: where a prompt would be needed, fail at once naming the flag to pass (also CI=true)', default: false, helpGroup: 'GLOBAL' }),
  };

  /**
   * How errors render. Derived here from the parsed `--json` (see `parse`); before parsing
   * succeeds (a usage error) it is a guess from argv, so a failed parse still honours --json.
   */
  protected jsonOutput = process.argv.includes('--json');

  protected override async parse<F extends Flags_, B extends Flags_, A extends Args_>(options?: Interfaces.Input<F, B, A>, argv?: string[]): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(commandLineOnly(options ?? (this.ctor as unknown as Interfaces.Input<F, B, A>)), argv);
    this.jsonOutput = (parsed.flags as { json?: unknown }).json === true;
    if ((parsed.flags as { 'no-input'?: unknown })['no-input'] === true) forbidPrompts();
    return parsed;
  }

  protected printJson(value: unknown): void {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  protected note(message: string): void {
    process.stderr.write(message + '\n');
  }

  protected override async catch(err: Error): Promise<void> {
    // a usage error came from parsing: oclif would add "did not parse its arguments" under
    // NODE_ENV=development or test (a user's shell, a test runner), which is not true
    (this as unknown as { parsed: boolean }).parsed = true;
    process.exitCode = renderError(err, this.jsonOutput, this.id);
  }
}
