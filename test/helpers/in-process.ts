// Runs the built CLI in THIS process (issue 30 item 4): the same command line, options and result
// as runCli (test/helpers/cli.ts), without starting a node process (~150-300 ms each). For tests
// of rendering, flag handling and error mapping; what only a process shows (its exit as a whole,
// signals, start-up, the money paths end to end, locks between processes) stays with runCli.
//
// How a run goes, as bin/run.js would:
// - the fast path: `parseFast` (dist/cli/fast-path.js) over the manifest bin/run.js reads
//   (dist/bundle/manifest.json); the command's topic script of dist/bundle/ is run afresh
//   (compiled once per worker, evaluated once per run: every module of the product starts with
//   its own state, as in a new process: the --no-input mark, the journal's caches, the key
//   locks held, the HTTP transport...), the command class built on the lite oclif, `useIo` with
//   memory streams (not terminals, like runCli's pipes), `_run()`;
// - anything the fast path hands over (help, usage errors, an unknown command, a line it does not
//   fully parse, CARDCTL_NO_FAST_PATH=1): oclif's own `run` over dist/, as `execute` in bin/run.js
//   (an error escaping it goes through oclif's `handle`). dist/ modules are loaded once per worker
//   by oclif (node's module cache), built on oclif itself: their module state lasts from one
//   oclif-path run to the next (nothing of it was seen to matter for help, usage errors and the
//   not-found path; the --no-input mark is set per command, src/no-input.ts).
// What the process would make of it, for the time of the run (runs are queued: never two at once):
// - process.env: runCli's (the developer's CARDCTL_* removed, NO_COLOR=1, then options.env);
// - process.argv: [node, bin/run.js, ...args] (error texts and resume commands quote it);
// - the cwd (options.cwd, default the checkout, as runCli);
// - process.stdin: options.input, or an empty pipe (runCli closes the child's stdin);
// - process.stdout/stderr.write and console.*: into the same buffers as the command's streams
//   (oclif's help, the not-found hook and oclif's `handle` write there);
// - process.exitCode: read as the exit code, then restored; process.exit(n): taken as the exit
//   code (it does not stop the code that called it: that stays a process's to show);
// - listeners a run added to process (exit, signals...) and to its stdout/stderr: removed after
//   it, the 'exit' ones first called with the exit code, as at a process's end (the key locks
//   still held are released, the journal's appends finished).
// Limits (use runCli for these): `options.bin` (another install) and `--version` (bin/run.js's
// start-up answer) are spawned (runCli); one process for every run (same pid: a lock one run left
// is "this process's" for the next, so locks between processes, signals, interrupts and closed
// pipes are not for this runner); `timeoutMs` fails the test instead of killing anything (the run
// may go on); a command's uncaught exception fails the test instead of printing a stack and exiting
// 1; runCli (makeSandbox().run) started during a run gets the worker's environment, but other code
// that copies process.env then (a child spawned by hand) sees the command's.
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { format } from 'node:util';
import { Script } from 'node:vm';
import { BIN, ROOT, cleanEnv, holdWorkerEnv, runCli, type CliOptions, type CliResult } from './cli.js';

const BUNDLES = join(ROOT, 'dist', 'bundle');
const FAST_PATH = Symbol.for('cardctl.fastPath');
const nodeRequire = createRequire(BIN);

interface ManifestCommand {
  relativePath?: string[];
}
interface FastPathModule {
  parseFast(
    argv: readonly string[],
    manifest: unknown,
  ): { id: string; args: Record<string, string>; flags: Record<string, unknown>; argv: string[] } | null;
}
interface FastCommand {
  id: string | undefined;
  preparsed: { args: Record<string, unknown>; flags: Record<string, unknown>; argv: string[] } | undefined;
  useIo(io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): FastCommand;
  _run(): Promise<unknown>;
}

let queue: Promise<unknown> = Promise.resolve();

/** runCli's command line, options and result, run in this process (see the top of this file). */
export function runInProcess(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (options.bin !== undefined || (args.length === 1 && ['--version', '-v', 'version'].includes(args[0]!)))
    return runCli(args, options); // another install, or bin/run.js's own start-up answer
  const run = queue.then(() => withTimeout(runOnce(args, options), args, options.timeoutMs ?? 30_000));
  queue = run.catch(() => undefined);
  return run;
}

/** A sandbox's `run`, in-process: the sandbox's env under the options' (as makeSandbox().run). */
export function inProcessRunner(sandbox: {
  env: Record<string, string>;
}): (args: string[], options?: CliOptions) => Promise<CliResult> {
  return (args, options = {}) => runInProcess(args, { ...options, env: { ...sandbox.env, ...options.env } });
}

async function withTimeout<T>(work: Promise<T>, args: string[], ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`in-process run of \`cardctl ${args.join(' ')}\` still running after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a run writes, by stream, in order, as bytes. */
class Capture {
  private readonly chunks: Buffer[] = [];
  readonly stream = new Writable({
    decodeStrings: false,
    write: (chunk: string | Buffer, encoding, callback) => {
      this.add(chunk, encoding);
      callback();
    },
  });
  add(chunk: unknown, encoding?: unknown): void {
    this.chunks.push(
      Buffer.isBuffer(chunk)
        ? Buffer.from(chunk)
        : chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

const PROCESS_EVENTS = [
  'exit',
  'beforeExit',
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGPIPE',
  'uncaughtException',
  'unhandledRejection',
  'warning',
] as const;
const STREAM_EVENTS = ['error', 'drain', 'close', 'finish'] as const;

async function runOnce(args: string[], options: CliOptions): Promise<CliResult> {
  const out = new Capture();
  const err = new Capture();
  const restore = enterProcess(args, options, out, err);
  let code: number;
  try {
    const ran = await runCommandLine(args, out, err);
    code = ran ?? restore.exitCode();
  } finally {
    code ??= 1;
    code = restore.leave(code);
  }
  return { code, stdout: out.text(), stderr: err.text() };
}

/** Sets up what a process of this command line would have; `leave` puts the worker's back and says the exit code. */
function enterProcess(
  args: string[],
  options: CliOptions,
  out: Capture,
  err: Capture,
): { exitCode(): number; leave(code: number): number } {
  const savedEnv = { ...process.env };
  const env: Record<string, string | undefined> = { ...cleanEnv(), ...options.env };
  holdWorkerEnv(savedEnv); // runCli started meanwhile (a child the test waits on) gets the worker's
  for (const k of Object.keys(process.env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;

  const savedArgv = process.argv;
  process.argv = [process.execPath, BIN, ...args];
  const savedCwd = process.cwd();
  process.chdir(options.cwd ?? ROOT);

  const stdinDescriptor = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  const stdin = new Readable({ read() {} });
  if (options.input !== undefined) stdin.push(Buffer.from(options.input));
  stdin.push(null);
  Object.defineProperty(process, 'stdin', { configurable: true, enumerable: true, get: () => stdin });

  const savedExitCode = process.exitCode;
  process.exitCode = undefined;
  let exitCalled: number | undefined;
  const savedExit = process.exit;
  process.exit = ((c?: number | string | null) => {
    exitCalled ??=
      c === undefined || c === null ? (typeof process.exitCode === 'number' ? process.exitCode : 0) : Number(c);
    return undefined as never;
  }) as typeof process.exit;

  const writes = [
    [process.stdout, out],
    [process.stderr, err],
  ] as const;
  const savedWrites = writes.map(([stream]) => stream.write);
  for (const [stream, capture] of writes)
    stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
      capture.add(chunk, encoding);
      const callback = typeof encoding === 'function' ? encoding : cb;
      if (typeof callback === 'function') process.nextTick(callback as () => void);
      return true;
    }) as typeof stream.write;
  const consoleMethods = { log: out, info: out, debug: out, error: err, warn: err, trace: err } as const;
  const savedConsole = Object.fromEntries(
    Object.keys(consoleMethods).map((m) => [m, console[m as keyof typeof consoleMethods]]),
  );
  for (const [m, capture] of Object.entries(consoleMethods))
    console[m as keyof typeof consoleMethods] = (...a: unknown[]) => capture.add(`${format(...a)}\n`);

  // (process's listener methods are overloaded per event: one signature for all of them here)
  const proc = process as unknown as NodeJS.EventEmitter;
  const processListeners = PROCESS_EVENTS.map((e) => [e, new Set(proc.listeners(e))] as const);
  const streamListeners = writes.flatMap(([stream]) =>
    STREAM_EVENTS.map((e) => [stream, e, new Set(stream.listeners(e))] as const),
  );
  const savedFastPath = (globalThis as Record<symbol, unknown>)[FAST_PATH];

  return {
    exitCode: () =>
      exitCalled ?? (typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0)),
    leave(code: number): number {
      // the 'exit' listeners run as at the end of a process (they may still write: stderr is captured)
      for (const [event, before] of processListeners)
        for (const l of proc.listeners(event))
          if (!before.has(l)) {
            if (event === 'exit') {
              try {
                (l as (c: number) => void)(code);
              } catch {
                // as in a process: an exit listener's failure ends nothing more
              }
            }
            proc.removeListener(event, l as (...a: unknown[]) => void);
          }
      for (const [stream, event, before] of streamListeners)
        for (const l of stream.listeners(event))
          if (!before.has(l)) stream.removeListener(event, l as (...a: unknown[]) => void);
      const final = exitCalled ?? code;
      (globalThis as Record<symbol, unknown>)[FAST_PATH] = savedFastPath;
      for (const [m, fn] of Object.entries(savedConsole)) console[m as keyof typeof consoleMethods] = fn as never;
      writes.forEach(([stream], i) => (stream.write = savedWrites[i] as typeof stream.write));
      process.exit = savedExit;
      process.exitCode = savedExitCode;
      Object.defineProperty(process, 'stdin', stdinDescriptor);
      process.chdir(savedCwd);
      process.argv = savedArgv;
      for (const k of Object.keys(process.env)) delete process.env[k];
      Object.assign(process.env, savedEnv);
      holdWorkerEnv(undefined);
      return final;
    },
  };
}

let manifest: { commands: Record<string, ManifestCommand> } | undefined;
let fastPath: FastPathModule | undefined;

/** Runs the command line as bin/run.js would; returns the exit code when it already knows it. */
async function runCommandLine(args: string[], out: Capture, err: Capture): Promise<number | undefined> {
  manifest ??= JSON.parse(readFileSync(join(BUNDLES, 'manifest.json'), 'utf8')) as typeof manifest;
  fastPath ??= (await import(join(ROOT, 'dist', 'cli', 'fast-path.js'))) as FastPathModule;
  const line = args[0] && !process.env.CARDCTL_NO_FAST_PATH ? fastPath.parseFast(args, manifest) : null;
  const relativePath = line && manifest!.commands[line.id]?.relativePath?.join('/');
  if (line && relativePath) {
    (globalThis as Record<symbol, unknown>)[FAST_PATH] = true;
    const { default: CommandClass } = (await loadCommand(relativePath)) as {
      default: new (argv: string[], config: unknown) => FastCommand;
    };
    const command = new CommandClass(args.slice(line.id.split(':').length), undefined);
    command.id = line.id;
    command.preparsed = { args: line.args, flags: line.flags, argv: line.argv };
    command.useIo({ stdout: out.stream, stderr: err.stream });
    await command._run();
    await settle();
    return undefined;
  }
  // oclif's path: it loads dist/ itself, and src/cli/oclif.ts builds the commands on oclif when this is unset
  delete (globalThis as Record<symbol, unknown>)[FAST_PATH];
  const oclif = (await import('@oclif/core')) as typeof import('@oclif/core');
  try {
    await oclif.run(args, ROOT);
  } catch (error) {
    await oclif.handle(error as Error); // its Exit.exit is process.exit: taken as the exit code
  }
  await settle();
  return undefined;
}

/** Output a command leaves to the next turns of the event loop (the --jq filter of a waiting document). */
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
}

const scripts = new Map<string, Script>();

/**
 * A command's module from its topic's start-up bundle (bin/run.js's rule: dist/commands/cards/get.js
 * is in cards.cjs), the script evaluated afresh: new module instances for this run.
 */
async function loadCommand(relativePath: string): Promise<unknown> {
  const name = `${relativePath.split('/')[2]!.replace(/\.js$/, '')}.cjs`;
  const file = join(BUNDLES, name);
  let script = scripts.get(name);
  if (!script) {
    script = new Script(readFileSync(file, 'utf8'), { filename: file });
    scripts.set(name, script);
  }
  const m = { exports: {} as { commands?: Record<string, () => Promise<unknown>> } };
  (script.runInThisContext() as (...a: unknown[]) => void)(m.exports, nodeRequire, m, file, BUNDLES, importForBundle);
  const load = m.exports.commands?.[relativePath];
  if (!load) throw new Error(`${relativePath} is not in dist/bundle/${name}: run \`npm run build\``);
  return load();
}

/** bin/run.js's import() for the bundles: a built-in from require, in its namespace's shape; a package by import(). */
function importForBundle(specifier: string): Promise<unknown> {
  if (!isBuiltin(specifier)) return import(specifier);
  const m = nodeRequire(specifier) as object;
  return Promise.resolve(Object.create(m, { default: { value: m, enumerable: true } }));
}
