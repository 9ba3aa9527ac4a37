// Runs the real built CLI (bin/run.js -> dist/) as a child process with an isolated config
// folder and state folder, so tests never touch the user's profiles or journal.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'run.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  cwd?: string;
  timeoutMs?: number;
  /** another copy of bin/run.js to run (test/helpers/package-copy.ts); default: this checkout's */
  bin?: string;
}

/** A temporary home for one test file: config dir, state dir, scratch files. */
export interface Sandbox {
  dir: string;
  configDir: string;
  stateDir: string;
  env: Record<string, string>;
  run(args: string[], options?: CliOptions): Promise<CliResult>;
  cleanup(): void;
}

/**
 * The worker's own environment while test/helpers/in-process.ts has put a command's in process.env
 * (undefined otherwise): a child started during an in-process run gets the worker's, not the command's.
 */
let outsideEnv: NodeJS.ProcessEnv | undefined;
export function holdWorkerEnv(env: NodeJS.ProcessEnv | undefined): void {
  outsideEnv = env;
}

/** Environment with every CARDCTL_* variable of the developer's shell removed (also test/helpers/in-process.ts). */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(outsideEnv ?? process.env)) {
    if (v !== undefined && !k.startsWith('CARDCTL_') && k !== 'CI') env[k] = v; // CI=true changes prompts and notes: a test sets it itself
  }
  env.NO_COLOR = '1';
  return env;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env = { ...cleanEnv(), ...options.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: env as NodeJS.ProcessEnv,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

export function makeSandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-test-'));
  const configDir = join(dir, 'config');
  const stateDir = join(dir, 'state');
  const env = { CARDCTL_CONFIG_DIR: configDir, XDG_STATE_HOME: stateDir, XDG_CONFIG_HOME: join(dir, 'xdg-config') };
  return {
    dir,
    configDir,
    stateDir,
    env,
    run: (args, options = {}) => runCli(args, { ...options, env: { ...env, ...options.env } }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
