// The demo's step runner: runs one REAL child process of the built CLI per step, prints the
// step as a reader should see it (heading, exact command line, trimmed output), checks its
// exit code and the value it expects, and records it for the --json summary.
import { spawn } from 'node:child_process';
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
  constructor(readonly step: string, message: string) {
    super(message);
  }
}

export interface RunnerOptions {
  /** node binary and the CLI entry (bin/run.js) */
  node: string;
  bin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
  chalk: ChalkInstance;
  /** strings that must never appear in any output (the mock's secrets) */
  secrets: string[];
  timeoutMs?: number;
}

const SAFE_ARG = /^[A-Za-z0-9_\-./:=@%+,]+$/;

/** POSIX-shell quoting for display, so a reader can copy the line. */
export function shellQuote(arg: string): string {
  if (arg !== '' && SAFE_ARG.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** First `max` lines, then a count of the rest. */
export function trimLines(text: string, max: number, quiet = false): string {
  if (text.trim() === '') return '';
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= max) return lines.join('\n') + '\n';
  const shown = lines.slice(0, max).map((l) => l + '\n').join('');
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

export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new DemoCheckError(message);
}

export class Runner {
  readonly records: StepRecord[] = [];
  private sectionCount = 0;
  private stepCount = 0;

  constructor(private readonly o: RunnerOptions) {}

  section(title: string): void {
    this.sectionCount += 1;
    this.o.write(`\n${this.o.chalk.bold.cyan(`━━ ${this.sectionCount}. ${title} ━━`)}\n`);
  }

  /** A line of explanation between steps. */
  say(text: string): void {
    this.o.write(this.o.chalk.dim(text) + '\n');
  }

  private exec(spec: StepSpec): Promise<CliRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.o.node, [this.o.bin, ...spec.argv], { cwd: this.o.cwd, env: this.o.env, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => err.push(d));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, this.o.timeoutMs ?? 30_000);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (timedOut) return reject(new DemoCheckError(`no answer within ${(this.o.timeoutMs ?? 30_000) / 1000} s`));
        resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
      });
      child.stdin.on('error', () => {}); // a child that exits without reading stdin
      child.stdin.end(spec.input ?? '');
    });
  }

  /** Secrets are cut out before anything is printed; finding one fails the step. */
  private redact(text: string): { text: string; leaked: boolean } {
    let leaked = false;
    for (const s of this.o.secrets) {
      if (s && text.includes(s)) {
        leaked = true;
        text = text.replaceAll(s, '[SECRET REMOVED]');
      }
    }
    return { text, leaked };
  }

  async step(spec: StepSpec): Promise<CliRun> {
    const { chalk, write } = this.o;
    this.stepCount += 1;
    const command = spec.display ?? ['cardctl', ...spec.argv.map(shellQuote)].join(' ') + (spec.grep ? ` | grep -E ${shellQuote(spec.grep)}` : '');
    const expected = spec.expectExit ?? 0;
    const record: StepRecord = { name: spec.name, command: this.redact(command).text, exit_code: null, expected_exit_code: expected, ok: false };
    this.records.push(record);
    write(`\n${chalk.bold(`▸ ${spec.title}`)}\n${chalk.yellow('$ ' + record.command)}\n`);

    const fail = (message: string): never => {
      record.ok = false;
      record.message = message;
      write(chalk.red.bold(`✗ step "${spec.name}" failed: ${message}`) + '\n');
      throw new StepFailed(spec.name, message);
    };

    let run: CliRun;
    try {
      run = await this.exec(spec);
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    record.exit_code = run.code;
    const max = spec.maxLines ?? 14;
    const out = this.redact(run.stdout);
    const err = this.redact(run.stderr);
    const pattern = spec.grep ? new RegExp(spec.grep) : null;
    const shown = pattern ? out.text.split('\n').filter((l) => pattern.test(l)).join('\n') : out.text;
    write(trimLines(shown, max, spec.quietTrim));
    const errShown = trimLines(err.text, max);
    if (errShown) write(chalk.dim(errShown.replace(/\n$/, '')) + '\n');

    if (out.leaked || err.leaked) fail('a secret appeared in the output');
    if (run.code !== expected) fail(`exit code ${run.code}, expected ${expected}`);
    let note: string | void = undefined;
    try {
      note = await spec.check?.(run);
    } catch (e) {
      fail(e instanceof Error ? e.message : String(e));
    }
    record.ok = true;
    write(chalk.green(`✓ exit ${run.code}${note ? ` · ${note}` : ''}`) + '\n');
    return run;
  }
}
