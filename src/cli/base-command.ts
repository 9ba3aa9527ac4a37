// Shared behaviour of every command: `--json`, error rendering, exit codes. Lives outside
// src/commands because nothing may import commands.
import type { Interfaces } from '@oclif/core';
import { Command, Flags } from './oclif.js';
import { forbidPrompts } from '../no-input.js';
import type { JqStream } from '../output/jq-stream.js';
import { guardClosedStdout } from './closed-stdout.js';
import { processIo, type Io } from '../io.js';
import { terminalSafe } from '../terminal-text.js';

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
  const args = Object.fromEntries(
    Object.entries(input.args ?? {}).map(([name, arg]) => [name, { ...arg, ignoreStdin: true }]),
  );
  const noStdin = (flags: Record<string, any> | undefined) =>
    flags &&
    Object.fromEntries(
      Object.entries(flags).map(([name, flag]) => [
        name,
        flag.type === 'option' ? { ...flag, allowStdin: false } : flag,
      ]),
    );
  return {
    ...input,
    args,
    flags: noStdin(input.flags),
    baseFlags: noStdin(input.baseFlags),
    enableJsonFlag: input.enableJsonFlag,
  } as T;
}

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'print one JSON value on stdout (errors too)', default: false }),
    'no-input': Flags.boolean({
      description: 'never prompt: where a prompt would be needed, fail at once naming the flag to pass (also CI=true)',
      default: false,
      helpGroup: 'GLOBAL',
    }),
    jq: Flags.string({
      description:
        'filter the JSON output with this jq expression (implies --json): strings print raw, other values as JSON, one per line',
      helpGroup: 'GLOBAL',
    }),
  };

  /**
   * How errors render. Derived here from the parsed `--json` (see `parse`); before parsing
   * succeeds (a usage error) it is a guess from argv, so a failed parse still honours --json.
   */
  protected jsonOutput = process.argv.includes('--json');

  /**
   * Whether an error prints as JSON on stdout: with --json, not with --jq (stdout then holds only
   * the filter's results; the error goes to stderr as text).
   */
  private jsonErrors = this.jsonOutput;

  /**
   * The streams this command writes to (src/io.ts), made once: the process's, with `--jq` a
   * stdout that filters what the command prints as JSON. Commands write only here, and hand it
   * to what they call; nothing under src/commands or src/client reads process.stdout/stderr.
   */
  protected io: Io = processIo();

  /**
   * Gives the command other streams before it runs: the seam for running commands in-process (a
   * test runner, an embedding program). `--jq` still wraps the stdout given here.
   */
  useIo(io: Io): this {
    this.io = io;
    return this;
  }

  protected override async parse<F extends Flags_, B extends Flags_, A extends Args_>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    guardClosedStdout();
    const parsed = await super.parse(
      commandLineOnly(options ?? (this.ctor as unknown as Interfaces.Input<F, B, A>)),
      argv,
    );
    const flags = parsed.flags as {
      json?: boolean;
      ndjson?: boolean;
      output?: string;
      jq?: string;
      'no-input'?: boolean;
    };
    // `--output json|ndjson` (list commands) is `--json`/`--ndjson` said the long way
    if (flags.output === 'json') flags.json = true;
    if (flags.output === 'ndjson') flags.ndjson = true;
    this.jsonOutput = flags.json === true;
    this.jsonErrors = this.jsonOutput;
    forbidPrompts(flags['no-input'] === true);
    if (flags.jq !== undefined) await this.startJq(flags);
    return parsed;
  }

  /** What the command prints as JSON goes through the --jq filter (src/output/jq-stream.ts). */
  private jq: JqStream | undefined;

  /**
   * `--jq`: checked before anything is sent (a bad expression is exit 2); the command then prints
   * exactly what --json (or --ndjson) prints, to a stdout that filters it.
   */
  private async startJq(flags: { json?: boolean; ndjson?: boolean; jq?: string }): Promise<void> {
    const [{ compileJq }, { jqStream }] = await Promise.all([
      import('../output/jq.js'),
      import('../output/jq-stream.js'),
    ]);
    const program = await compileJq(flags.jq!);
    if (!flags.ndjson) flags.json = true;
    this.jsonOutput = flags.json === true;
    this.jsonErrors = false; // errors go to stderr: stdout holds only the filter's results
    const real = this.io;
    this.jq = jqStream(program, real.stdout, { perLine: flags.ndjson === true });
    this.io = { stdout: this.jq.stream, stderr: real.stderr };
  }

  override async _run(): Promise<any> {
    const result = await super._run();
    if (!isResult(result) && !isStreamResult(result)) return result; // nothing to print (help)
    try {
      const exitCode = await this.printResult(result);
      this.jq?.finish();
      if (exitCode !== undefined) process.exitCode = exitCode;
    } catch (err) {
      // a list's pages and a stream's items come as they print: a failure there is the command's
      await this.catch(err as Error);
    }
    return result;
  }

  /**
   * Prints what `run()` returned, once, in the format asked for (src/output/render.ts, list.ts,
   * stream.ts); resolves with the exit code it ends with, or throws the failure it carries.
   */
  private async printResult(
    result: import('../output/render.js').Result | import('../output/stream.js').StreamResult,
  ): Promise<number | undefined> {
    if (isStreamResult(result))
      return (await import('../output/stream.js')).renderStream(this.io, result, this.jsonOutput);
    // the command failed after all: with --json the error alone is the one document; text shows the output first
    if (result.failure !== undefined && this.jsonOutput) throw result.failure;
    await (await import('../output/render.js')).render(this.io, result, this.jsonOutput);
    if (result.failure !== undefined) throw result.failure;
    return result.exitCode;
  }

  /** One line on stderr while the command works (what comes after its output goes in its result's notes); escaped, as it may quote an argument, a file or a server. */
  protected note(message: string): void {
    this.io.stderr.write(terminalSafe(message) + '\n');
  }

  protected override async catch(err: Error): Promise<void> {
    // a usage error came from parsing: oclif would add "did not parse its arguments" under
    // NODE_ENV=development or test (a user's shell, a test runner), which is not true
    (this as unknown as { parsed: boolean }).parsed = true;
    this.jq?.abandon();
    process.exitCode = await showError(err, this.jsonErrors, this.id, this.io);
  }
}

/** Whether `run()` returned a result to print (src/output/render.ts; checked without loading it). */
function isResult(value: unknown): value is import('../output/render.js').Result {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for('cardctl.result')] === true
  );
}

/** Whether `run()` returned a streaming result (src/output/stream.ts; checked without loading it). */
function isStreamResult(value: unknown): value is import('../output/stream.js').StreamResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for('cardctl.stream')] === true
  );
}

/** src/cli/render-error.ts, loaded when an error is shown: a command that succeeds does not load it (nor the usage and suggestion code behind it) */
async function showError(err: unknown, json: boolean, commandId: string | undefined, io: Io): Promise<number> {
  const { renderError } = await import('./render-error.js');
  return renderError(err, json, commandId, io);
}
