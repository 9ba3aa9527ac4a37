// What a command class needs of oclif when the start-up fast path runs it (src/cli/fast-path.ts):
// `Flags` and `Args` that only describe (the fast path parses from oclif.manifest.json, not from
// these), and a `Command` whose `parse` returns what the fast path parsed. Importing oclif costs
// more than starting node; this costs nothing. Never used when oclif runs the command.

type Definition = Record<string, unknown>;

const option =
  (defaults: Definition = {}) =>
  (options: Definition = {}): Definition => ({
    ...defaults,
    ...options,
    type: 'option',
    multiple: Boolean(options.multiple ?? defaults.multiple),
  });

export const Flags = {
  boolean: (options: Definition = {}): Definition => ({
    ...options,
    allowNo: Boolean(options.allowNo),
    type: 'boolean',
  }),
  string: option(),
  integer: option({ kind: 'integer' }),
  option: (options: Definition = {}): Definition => option()(options),
  custom: (defaults: Definition = {}) => option(defaults),
  directory: option(),
  file: option(),
  url: option(),
};

const arg =
  (defaults: Definition = {}) =>
  (options: Definition = {}): Definition => ({ ...defaults, ...options });
export const Args = {
  string: arg(),
  integer: arg({ kind: 'integer' }),
  boolean: arg(),
  custom: (defaults: Definition = {}) => arg(defaults),
  directory: arg(),
  file: arg(),
  url: arg(),
};

/** What `parse` returns in the fast path: set by the fast path before `_run`. */
export interface Preparsed {
  args: Record<string, unknown>;
  flags: Record<string, unknown>;
  argv: string[];
}

class CommandError extends Error {
  readonly oclif: { exit: number };
  constructor(message: string, exit: number) {
    super(message);
    this.oclif = { exit };
  }
}

export abstract class Command {
  id: string | undefined;
  readonly argv: string[];
  readonly config: unknown;
  preparsed: Preparsed | undefined;

  constructor(argv: string[], config: unknown) {
    this.argv = argv;
    this.config = config;
  }

  abstract run(): Promise<unknown>;

  /** oclif's `_run`: run, and hand a failure to `catch`. */
  async _run(): Promise<unknown> {
    try {
      return await this.run();
    } catch (err) {
      await this.catch(err as Error);
      return undefined;
    }
  }

  protected async parse(): Promise<
    Preparsed & { raw: []; metadata: { flags: Record<string, never> }; nonExistentFlags: [] }
  > {
    if (!this.preparsed)
      throw new Error(`${this.id ?? 'this command'}: run through the fast path without parsed flags`);
    return { ...this.preparsed, raw: [], metadata: { flags: {} }, nonExistentFlags: [] };
  }

  protected async catch(err: Error): Promise<unknown> {
    throw err;
  }

  log(message = ''): void {
    process.stdout.write(`${message}\n`);
  }

  logToStderr(message = ''): void {
    process.stderr.write(`${message}\n`);
  }

  warn(input: string | Error): string | Error {
    process.stderr.write(`Warning: ${input instanceof Error ? input.message : input}\n`);
    return input;
  }

  error(input: string | Error, options: { exit?: number | false } = {}): never {
    const message = input instanceof Error ? input.message : input;
    throw new CommandError(message, options.exit === false ? 1 : (options.exit ?? 2));
  }

  exit(code = 0): never {
    throw new CommandError(`EEXIT: ${code}`, code);
  }
}
