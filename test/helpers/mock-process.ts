// `cardctl mock start` as a child process of the built CLI, in a sandbox: started with --json
// (the banner is its first stdout line), its stderr collected, stopped by SIGTERM (SIGKILL when it
// does not stop). Every test that starts one stops it in its teardown.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BIN, ROOT, type Sandbox } from './cli.js';
import type { MockBanner } from './api.js';

export interface MockProcess {
  child: ChildProcessWithoutNullStreams;
  banner: MockBanner;
  /** everything written on stderr so far */
  stderr(): string;
  stop(): Promise<number | null>;
}

export function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode)
      : child.once('exit', (code) => resolve(code)),
  );
}

/** Starts `mock start --port 0 --json ARGS`; rejects with its stderr when it exits before the banner. */
export function startMockProcess(sandbox: Sandbox, args: string[]): Promise<MockProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...sandbox.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !(k in sandbox.env)) delete env[k];
  const child = spawn(process.execPath, [BIN, 'mock', 'start', '--port', '0', '--json', ...args], { cwd: ROOT, env });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exitOf(child);
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      const first = nl >= 0 ? (JSON.parse(out.slice(0, nl)) as MockBanner | { error: unknown }) : null;
      if (first && 'base_url' in first) resolve({ child, banner: first, stderr: () => err, stop });
    });
    // a refusal under --json is one {"error": ...} line on stdout
    child.once('exit', (code) => reject(new Error(`mock start exited with ${code}: ${out}${err}`)));
  });
}

/** Runs `mock start ARGS` expecting it to be refused: its exit code and stderr (killed if it starts after all). */
export async function refusedMockStart(
  sandbox: Sandbox,
  args: string[],
): Promise<{ code: number | null; stderr: string }> {
  try {
    const started = await startMockProcess(sandbox, args);
    await started.stop();
    return { code: 0, stderr: `it started: ${started.stderr()}` };
  } catch (err) {
    const m = /exited with (\S+): ([\s\S]*)$/.exec((err as Error).message);
    return { code: m ? Number(m[1]) : null, stderr: m ? m[2]! : (err as Error).message };
  }
}
