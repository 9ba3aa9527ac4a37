// The demo's step runner: runs one REAL child process of the built CLI per step, prints the
// step as a reader should see it (heading, exact command line, trimmed output), checks its
// exit code and the value it expects, and records it for the --json summary. A step can also
// start in the background (`cardctl ... &`) while later steps run, and be collected with
// `wait $!`, where its exit code and check are verified like any other step's.
import { shellQuote } from '../shell-quote.js';
import { spawn, type ChildProcess } from 'node:child_process';
import type { ChalkInstance } from 'chalk';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface StepSpec {
  /** short stable name for the summary, e.g. "cards: issue" */
  name: string;
  /** what the step shows, one line */
  title: string;
  /** arguments after `cardctl` */
  argv: string[];
  /** the command line as shown, when it is not just `cardctl ARGV` (a secret piped on stdin) */
  display?: string;
  /** stdin of the child (secrets go here, never into argv) */
  input?: string;
  /** variables added to the child's environment, shown before the command (`NAME=value cardctl ...`) */
  env?: Record<string, string>;
  /** default 0 */
  expectExit?: number;
  /** lines of stdout (and of stderr) shown before trimming; default 14 */
  maxLines?: number;
  /** show only the stdout lines matching this pattern (the command line says `| grep -E '...'`);
   *  it must mean the same as a JS RegExp and as a POSIX ERE. Checks still see the whole output. */
  grep?: string;
  /** drop the "… (N more lines)" note (the shown command already says `| head`) */
  quietTrim?: boolean;
  /** checks the answer: throw DemoCheckError when it deviates; may return a short note to print */
  check?: (run: CliRun) => void | string | Promise<void | string>;
}

/** A background step: no `grep` (with `cmd | grep &`, `wait $!` would answer grep's exit code). */
export interface BackgroundSpec extends Omit<StepSpec, 'grep'> {
  /** the step goes on to the next ones once the output so far passes this (the process keeps running) */
  ready: (run: CliRun) => boolean;
  /** what the output shows once ready, for the ✓ line */
  readyNote?: (run: CliRun) => string | void;
}

/** A step running in the background: collect it with `Runner.wait`. */
export interface BackgroundJob {
  readonly spec: BackgroundSpec;
  readonly record: StepRecord;
  /** the output so far */
  readonly run: CliRun;
}

export interface StepRecord {
  name: string;
  command: string;
  exit_code: number | null;
  expected_exit_code: number;
  ok: boolean;
  message?: string;
}

/** A deviation found by a step's check: the demo stops and names the step. */
export class DemoCheckError extends Error {}

/** Thrown by `step` after a failure has been printed and recorded; ends the tour. */
export class StepFailed extends Error {
  constructor(
    readonly step: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RunnerOptions {
  /** node binary and the CLI entry (bin/run.js); no entry when `node` is the single-file binary */
  node: string;
  bin: string | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
  chalk: ChalkInstance;
  /** strings that must never appear in any output (the mock's secrets) */
  secrets: string[];
  timeoutMs?: number;
}

/** First `max` lines, then a count of the rest. */
export function trimLines(text: string, max: number, quiet = false): string {
  if (text.trim() === '') return '';
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= max) return lines.join('\n') + '\n';
  const shown = lines
    .slice(0, max)
    .map((l) => l + '\n')
    .join('');
  return quiet ? shown : shown + `… (${lines.length - max} ${max === 0 ? '' : 'more '}lines)\n`;
}

/** The JSON body in a `request` output (also after `--include` headers). */
export function bodyJson<T = any>(stdout: string): T {
  const start = stdout.search(/^[{[]/m);
  if (start < 0) throw new DemoCheckError('no JSON body in the output');
  try {
    return JSON.parse(stdout.slice(start)) as T;
  } catch {
    throw new DemoCheckError('the output is not valid JSON');
  }
}

/** The `key  value` block the resource commands print for one resource ("-" is null). */
export function keyValues(stdout: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([a-z][a-z0-9_]*) {2,}(.*)$/.exec(line);
    if (m) fields[m[1]!] = m[2]!.trimEnd();
  }
  if (Object.keys(fields).length === 0) throw new DemoCheckError('no "key  value" block in the output');
  return fields;
}

/** The rows of a table the list commands print: each row's cells, by upper-case column name. */
export function tableRows(stdout: string): Array<Record<string, string>> {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const head = lines.shift();
  if (!head || !/^[A-Z_]+( +[A-Z_]+)*$/.test(head.trim())) return [];
  const cols = [...head.matchAll(/[A-Z_]+/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines.map((line) =>
    Object.fromEntries(cols.map((c, i) => [c.name, line.slice(c.at, cols[i + 1]?.at ?? line.length).trim()])),
  );
}

export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new DemoCheckError(message);
}

interface Job {
  child: ChildProcess;
  /** the output so far; `code` is set once the process ended */
  run: CliRun & { ended: boolean };
  /** resolves when the process ended (rejects on a spawn error or the time limit) */
  done: Promise<CliRun>;
  /** called on every chunk of output and at the end */
  onChange: Set<() => void>;
}

/** A section that could not run here (what it needs is missing): why, and what would show it. */
export interface SkipRecord {
  section: string;
  reason: string;
  how_to_see: string;
}

export class Runner {
  readonly records: StepRecord[] = [];
  readonly skipped: SkipRecord[] = [];
  private sectionCount = 0;
  private sectionTitle = '';
  private stepCount = 0;
  private readonly jobs = new Set<Job>();
  private readonly secrets: string[];

  constructor(private readonly o: RunnerOptions) {
    this.secrets = [...o.secrets];
  }

  section(title: string): void {
    this.sectionCount += 1;
    this.sectionTitle = title;
    this.o.write(`\n${this.o.chalk.bold.cyan(`━━ ${this.sectionCount}. ${title} ━━`)}\n`);
  }

  /** A line of explanation between steps. */
  say(text: string): void {
    this.o.write(this.o.chalk.dim(text) + '\n');
  }

  /** The section cannot run here: one line saying why and how to see it; recorded for the summary. */
  skip(reason: string, howToSee: string): void {
    this.skipped.push({ section: this.sectionTitle, reason, how_to_see: howToSee });
    this.o.write(this.o.chalk.yellow(`⤼ skipped: ${reason}. To see it: ${howToSee}.`) + '\n');
  }

  /** One more string that must never appear in any output (a password a section made). */
  addSecret(secret: string): void {
    if (secret) this.secrets.push(secret);
  }

  private launch(spec: StepSpec): Job {
    const child = spawn(this.o.node, [...(this.o.bin ? [this.o.bin] : []), ...spec.argv], {
      cwd: this.o.cwd,
      env: { ...this.o.env, ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const limit = this.o.timeoutMs ?? 30_000;
    const job: Job = {
      child,
      run: { code: 1, stdout: '', stderr: '', ended: false },
      done: undefined as unknown as Promise<CliRun>,
      onChange: new Set(),
    };
    const changed = (): void => job.onChange.forEach((f) => f());
    child.stdout!.setEncoding('utf8').on('data', (d: string) => ((job.run.stdout += d), changed()));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => ((job.run.stderr += d), changed()));
    job.done = new Promise<CliRun>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, limit);
      child.on('error', (e) => {
        clearTimeout(timer);
        this.jobs.delete(job);
        reject(e);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        this.jobs.delete(job);
        job.run.code = code ?? 1;
        job.run.ended = true;
        changed();
        if (timedOut) reject(new DemoCheckError(`no answer within ${limit / 1000} s`));
        else resolve({ code: job.run.code, stdout: job.run.stdout, stderr: job.run.stderr });
      });
    });
    job.done.catch(() => {}); // awaited by the step; a job left behind must not crash the demo
    child.stdin!.on('error', () => {}); // a child that exits without reading stdin
    child.stdin!.end(spec.input ?? '');
    this.jobs.add(job);
    return job;
  }

  /** Ends what still runs in the background (after a failed step); the demo is closing. */
  stopAll(): void {
    for (const job of this.jobs) job.child.kill('SIGKILL');
    this.jobs.clear();
  }

  /** Secrets are cut out before anything is printed; finding one fails the step. */
  private redact(text: string): { text: string; leaked: boolean } {
    let leaked = false;
    for (const s of this.secrets) {
      if (s && text.includes(s)) {
        leaked = true;
        text = text.replaceAll(s, '[SECRET REMOVED]');
      }
    }
    return { text, leaked };
  }

  private commandLine(spec: StepSpec): string {
    const vars = Object.entries(spec.env ?? {})
      .map(([k, v]) => `${k}=${shellQuote(v)} `)
      .join('');
    return (
      spec.display ??
      vars +
        ['cardctl', ...spec.argv.map(shellQuote)].join(' ') +
        (spec.grep ? ` | grep -E ${shellQuote(spec.grep)}` : '')
    );
  }

  /** Opens a step: heading, command line, record. */
  private open(
    spec: { name: string; title: string; expectExit?: number },
    command: string,
  ): { record: StepRecord; fail: (message: string) => never } {
    const { chalk, write } = this.o;
    this.stepCount += 1;
    const record: StepRecord = {
      name: spec.name,
      command: this.redact(command).text,
      exit_code: null,
      expected_exit_code: spec.expectExit ?? 0,
      ok: false,
    };
    this.records.push(record);
    write(`\n${chalk.bold(`▸ ${spec.title}`)}\n${chalk.yellow('$ ' + record.command)}\n`);
    const fail = (message: string): never => {
      record.ok = false;
      record.message = message;
      write(chalk.red.bold(`✗ step "${spec.name}" failed: ${message}`) + '\n');
      throw new StepFailed(spec.name, message);
    };
    return { record, fail };
  }

  /** Prints the output of `run` from `from` on (what was not shown yet); answers the new offsets. */
  private show(spec: StepSpec, run: CliRun, from = { out: 0, err: 0 }): { out: number; err: number; leaked: boolean } {
    const { chalk, write } = this.o;
    const max = spec.maxLines ?? 14;
    const out = this.redact(run.stdout);
    const err = this.redact(run.stderr);
    const pattern = spec.grep ? new RegExp(spec.grep) : null;
    const fresh = out.text.slice(from.out);
    const shown = pattern
      ? fresh
          .split('\n')
          .filter((l) => pattern.test(l))
          .join('\n')
      : fresh;
    write(trimLines(shown, max, spec.quietTrim));
    const errShown = trimLines(err.text.slice(from.err), max);
    if (errShown) write(chalk.dim(errShown.replace(/\n$/, '')) + '\n');
    return { out: out.text.length, err: err.text.length, leaked: out.leaked || err.leaked };
  }

  /** Runs the step's check; answers its note, or fails the step. */
  private async verify(
    spec: StepSpec,
    run: CliRun,
    leaked: boolean,
    fail: (message: string) => never,
  ): Promise<string | void> {
    if (leaked) fail('a secret appeared in the output');
    if (run.code !== (spec.expectExit ?? 0)) fail(`exit code ${run.code}, expected ${spec.expectExit ?? 0}`);
    try {
      return await spec.check?.(run);
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
  }

  async step(spec: StepSpec): Promise<CliRun> {
    const { chalk, write } = this.o;
    const { record, fail } = this.open(spec, this.commandLine(spec));
    let run: CliRun;
    try {
      run = await this.launch(spec).done;
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    record.exit_code = run.code;
    const { leaked } = this.show(spec, run);
    const note = await this.verify(spec, run, leaked, fail);
    record.ok = true;
    write(chalk.green(`✓ exit ${run.code}${note ? ` · ${note}` : ''}`) + '\n');
    return run;
  }

  /**
   * Starts a step in the background (`cardctl ... &`), prints its output until `spec.ready`
   * passes, and returns while it keeps running. Its exit code and `spec.check` are verified by
   * `wait`. Exiting (or a secret showing) before it is ready fails the step.
   */
  async start(spec: BackgroundSpec): Promise<BackgroundJob> {
    const { chalk, write } = this.o;
    const { record, fail } = this.open(spec, `${this.commandLine(spec)} &`);
    const job = this.launch(spec);
    const isReady = (): boolean => {
      try {
        return spec.ready(job.run);
      } catch {
        return false;
      }
    };
    try {
      await new Promise<void>((resolve, reject) => {
        const test = (): void => {
          if (isReady() || job.run.ended) {
            job.onChange.delete(test);
            resolve();
          }
        };
        job.onChange.add(test);
        job.done.catch(reject);
        test();
      });
      // what the other stream wrote alongside (stdout and stderr are separate pipes) is shown now too
      if (!job.run.ended) await new Promise((resolve) => setTimeout(resolve, 50));
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    const shown = this.show(spec, job.run);
    if (shown.leaked) fail('a secret appeared in the output');
    if (!isReady()) {
      record.exit_code = job.run.code;
      fail(`exited with code ${job.run.code} before it was ready`);
    }
    record.ok = true;
    const note = spec.readyNote?.(job.run);
    write(chalk.green(`✓ running in the background${note ? ` · ${note}` : ''}`) + '\n');
    const handle: BackgroundJob & { job: Job; shown: { out: number; err: number } } = {
      spec,
      record,
      run: job.run,
      job,
      shown,
    };
    return handle;
  }

  /** `kill -INT $!; wait $!`: stops a background step that runs until interrupted (a listener), then checks it like `wait`. */
  async stop(bg: BackgroundJob, step: { name: string; title: string }): Promise<CliRun> {
    const { job } = bg as BackgroundJob & { job: Job };
    if (!job.run.ended) job.child.kill('SIGINT');
    return this.wait(bg, step, 'kill -INT $!; wait $!');
  }

  /** `wait $!`: waits for a background step to end, prints the rest of its output, checks its exit code and `check`. */
  async wait(bg: BackgroundJob, step: { name: string; title: string }, command = 'wait $!'): Promise<CliRun> {
    const { chalk, write } = this.o;
    const { job, shown } = bg as BackgroundJob & { job: Job; shown: { out: number; err: number } };
    const spec = { ...bg.spec, name: step.name, title: step.title };
    const { record, fail } = this.open(spec, command);
    let run: CliRun;
    try {
      run = await job.done;
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    record.exit_code = bg.record.exit_code = run.code;
    const { leaked } = this.show(spec, run, shown);
    const note = await this.verify(spec, run, leaked, fail);
    record.ok = true;
    write(chalk.green(`✓ exit ${run.code}${note ? ` · ${note}` : ''}`) + '\n');
    return run;
  }
}
