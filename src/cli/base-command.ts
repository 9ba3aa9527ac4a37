// Shared behaviour of every command: `--json`, error rendering, exit codes. Lives outside
// src/commands because nothing may import commands.
import type { Interfaces } from '@oclif/core';
import { Command, Flags } from './oclif.js';
import { forbidPrompts } from '../no-input.js';
import type { JqStream } from '../output/jq-stream.js';
import { guardClosedStdout } from './closed-stdout.js';
import { alertStream, processIo, type Io } from '../io.js';
import { usageError } from '../errors.js';
import { endOfCommand } from '../client/exiting.js';
import { terminalSafe } from '../terminal-text.js';

/** `-o, --output` of a command that prints one result; lists have more (src/cli/api-flags.ts `listFlags`). */
export const SINGLE_OUTPUTS = ['text', 'table', 'json'] as const;

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
    quiet: Flags.boolean({
      char: 'q',
      description: 'print no notes, hints, banners or progress on stderr (errors still print)',
      default: false,
      helpGroup: 'GLOBAL',
    }),
    output: Flags.string({
      char: 'o',
      description: 'text (the default; table is the same) or json (the same as --json)',
      options: [...SINGLE_OUTPUTS],
      helpGroup: 'GLOBAL',
    }),
  };

  /**
   * How errors render. Derived here from the parsed `--json` (see `parse`); before parsing
   * succeeds (a usage error) it is a guess from argv, so a failed parse still honours --json.
   */
  protected jsonOutput = jsonAsked(process.argv);

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
    const flags = parsed.flags as OutputFlags & { 'no-input'?: boolean };
    if (flags.quiet) {
      if (flags.verbose) throw usageError('--quiet and --verbose ask for opposite things: give one.');
      this.io = (await import('../output/notes.js')).quietIo(this.io);
    }
    outputFromFlag(flags, (this.constructor as { flags?: Record<string, { exclusive?: string[] }> }).flags);
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
    this.io = { ...real, stdout: this.jq.stream };
  }

  override async _run(): Promise<any> {
    try {
      const result = await super._run();
      if (!isResult(result) && !isStreamResult(result)) return result; // nothing to print (help)
      try {
        const exitCode = await this.printResult(result);
        await this.jq?.finish();
        if (exitCode !== undefined) process.exitCode = exitCode;
      } catch (err) {
        // a list's pages and a stream's items come as they print: a failure there is the command's
        await this.catch(err as Error);
      }
      return result;
    } finally {
      await endOfCommand(); // a shared journal's connection ended (src/client/exiting.ts)
    }
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

  /** A dry run's report (src/cli/dry-run.ts), printed as any result is; resolves with its exit code. */
  private async printDryRun(stop: { dryRun: import('../client/dry-run.js').DryRun }): Promise<number> {
    try {
      const result = await (await import('./dry-run.js')).dryRunResult(stop.dryRun);
      const code = await this.printResult(result);
      await this.jq?.finish();
      return code ?? 0;
    } catch (err) {
      this.jq?.abandon();
      return showError(err, this.jsonErrors, this.id, { stdout: this.io.stdout, stderr: alertStream(this.io) });
    }
  }

  /** One line on stderr while the command works (what comes after its output goes in its result's notes); escaped, as it may quote an argument, a file or a server. */
  protected note(message: string): void {
    this.io.stderr.write(terminalSafe(message) + '\n');
  }

  protected override async catch(err: Error): Promise<void> {
    // a usage error came from parsing: oclif would add "did not parse its arguments" under
    // NODE_ENV=development or test (a user's shell, a test runner), which is not true
    (this as unknown as { parsed: boolean }).parsed = true;
    // `--dry-run` stopped where the command would send: what it would have sent is its output
    if (isDryRunStop(err)) {
      process.exitCode = await this.printDryRun(err as Error & { dryRun: import('../client/dry-run.js').DryRun });
      return;
    }
    this.jq?.abandon();
    // an error prints under --quiet too (src/io.ts `alerts`)
    process.exitCode = await showError(err, this.jsonErrors, this.id, {
      stdout: this.io.stdout,
      stderr: alertStream(this.io),
    });
  }
}

/** Whether a failure is a `--dry-run` stopping before the socket (src/client/dry-run.ts; checked without loading it). */
function isDryRunStop(err: unknown): boolean {
  return (
    typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[Symbol.for('cardctl.dry-run')] === true
  );
}

interface OutputFlags {
  json?: boolean;
  ndjson?: boolean;
  output?: string;
  jq?: string;
  quiet?: boolean;
  verbose?: boolean;
}

/** A guess from argv before parsing succeeded (a usage error still honours `--json` and `-o json`). */
function jsonAsked(argv: readonly string[]): boolean {
  return argv.some(
    (a, i) =>
      a === '--json' ||
      a === '--output=json' ||
      a === '-ojson' ||
      ((a === '-o' || a === '--output') && argv[i + 1] === 'json'),
  );
}

/**
 * `-o, --output` of every command, said once here: `json` is `--json` (and `ndjson` a list's
 * `--ndjson`); `text` is `table` (a list's table, a resource's key-value block); asking for text
 * and JSON at once is a usage error (lists say theirs in src/cli/list-format.ts). A flag a command
 * made exclusive with --json (`request --include`) is refused with `-o json` too.
 */
function outputFromFlag(flags: OutputFlags, defs: Record<string, { exclusive?: string[] }> | undefined): void {
  if (flags.output === 'text') flags.output = 'table';
  const list = defs?.columns !== undefined; // a list's contradictions: src/cli/list-format.ts
  if (flags.output === 'table' && !list && (flags.json || flags.jq !== undefined))
    throw usageError(
      `--output table and ${flags.jq !== undefined ? '--jq' : '--json'} ask for two outputs: give one.`,
      '--output json is --json; --jq prints JSON.',
    );
  if (flags.output === 'json') {
    flags.json = true;
    const clash = Object.entries(defs ?? {}).find(
      ([name, d]) => d.exclusive?.includes('json') && (flags as Record<string, unknown>)[name] === true,
    );
    if (clash) throw usageError(`--${clash[0]} cannot be used with --output json (nor with --json).`);
  }
  if (flags.output === 'ndjson') flags.ndjson = true;
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
