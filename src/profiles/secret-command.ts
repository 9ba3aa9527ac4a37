// Secrets from a command (`profiles add --secret-command CMD`): a vault CLI, `pass`, `secret-tool`,
// 1Password's `op read`. How the command runs, like git's credential helpers and the AWS CLI's
// credential_process:
// - through the shell: `/bin/sh -c CMD` (`cmd.exe /d /s /c` on Windows), so quoting and pipes work;
// - in its own process group, stdin closed (cardctl's stdin may be a batch file or a piped secret:
//   the command must not eat it), stderr captured, never shown on success;
// - its stdout, with one final newline dropped, is the secret; at most 64 KiB;
// - within a deadline (10 s; the profile's --secret-command-timeout, CARDCTL_SECRET_COMMAND_TIMEOUT):
//   past it the whole process group is killed and its pipes closed (a process of another session
//   holding them, a daemonizing agent, cannot stretch the deadline);
// - once per cardctl process: the answer is kept in memory, never written anywhere.
// The secret is never put in any environment, output, log or file. cardctl's own secrets in the
// environment (CARDCTL_API_SECRET, CARDCTL_WEBHOOK_SECRET, CARDCTL_MOCK_TOKEN) are not passed on.
import { spawn } from 'node:child_process';
import { CardctlError } from '../errors.js';

import { checkSecretCommandTimeout } from './validate.js';

export const DEFAULT_SECRET_COMMAND_TIMEOUT_S = 10;
const MAX_OUTPUT_BYTES = 64 * 1024;
const MAX_STDERR_BYTES = 8 * 1024;
const HIDDEN_VARIABLES = ['CARDCTL_API_SECRET', 'CARDCTL_WEBHOOK_SECRET', 'CARDCTL_MOCK_TOKEN'];

/** Which secret a command gives, for messages and hints. */
export interface SecretCommandSpec {
  profile: string;
  /** 'API secret' or 'webhook secret' */
  what: 'API secret' | 'webhook secret';
  command: string;
  /** seconds; from the profile when set there */
  timeoutSeconds?: number;
  /** the problem with the output's shape (never quoting it), or undefined when it is a valid secret */
  check: (secret: string) => string | undefined;
  env?: NodeJS.ProcessEnv;
}

/** CARDCTL_SECRET_COMMAND_TIMEOUT, else the profile's, else 10 s. */
function timeoutSeconds(spec: SecretCommandSpec): number {
  const raw = spec.env?.CARDCTL_SECRET_COMMAND_TIMEOUT;
  if (raw !== undefined && raw.trim() !== '') {
    const n = Number(raw);
    if (checkSecretCommandTimeout(n) !== undefined) {
      throw new CardctlError(`CARDCTL_SECRET_COMMAND_TIMEOUT: ${checkSecretCommandTimeout(n)}.`, {
        kind: 'usage',
        hint: 'Fix or unset CARDCTL_SECRET_COMMAND_TIMEOUT.',
      });
    }
    return n;
  }
  return spec.timeoutSeconds ?? DEFAULT_SECRET_COMMAND_TIMEOUT_S;
}

const cache = new Map<string, Promise<string>>();

/** The secret the profile's command prints; the command runs at most once per process. */
export function secretFromCommand(spec: SecretCommandSpec): Promise<string> {
  const seconds = timeoutSeconds(spec);
  const key = `${spec.command}\u0000${seconds}`;
  let pending = cache.get(key);
  if (!pending) {
    pending = runOnce(spec, seconds);
    cache.set(key, pending);
  }
  return pending.then((secret) => {
    const problem = spec.check(secret);
    if (problem)
      throw failure(
        spec,
        `printed something that is not a valid ${spec.what}: ${problem}`,
        'Run the command yourself and check that it prints only the secret.',
      );
    return secret;
  });
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  /** the shell had exited at the deadline: what held its output open was a process it started */
  exitedBeforeDeadline: boolean;
  tooLong: boolean;
  spawnError?: Error;
}

async function runOnce(spec: SecretCommandSpec, seconds: number): Promise<string> {
  const outcome = await run(spec.command, seconds, spec.env ?? process.env);
  if (outcome.spawnError)
    throw failure(
      spec,
      `could not be started (${(outcome.spawnError as { code?: string }).code ?? outcome.spawnError.message})`,
      'Check that a shell (/bin/sh) is available.',
    );
  if (outcome.timedOut && outcome.exitedBeforeDeadline) {
    throw failure(
      spec,
      `exited, but a process it started still held its output open after ${seconds} s`,
      'A background process it starts must not keep its stdout: redirect it (`CMD >/dev/null 2>&1 &`), or start the agent before running cardctl.',
    );
  }
  if (outcome.timedOut) {
    throw failure(
      spec,
      `did not finish within ${seconds} s and was stopped`,
      'If it waits for a passphrase or a login, unlock it first (e.g. `op signin`, `vault login`): it runs without stdin. ' +
        'A slow vault: raise the limit with `profiles add ... --secret-command-timeout SECONDS --force` or CARDCTL_SECRET_COMMAND_TIMEOUT.',
    );
  }
  if (outcome.tooLong)
    throw failure(spec, `printed more than ${MAX_OUTPUT_BYTES / 1024} KiB`, 'It must print only the secret.');
  if (outcome.code !== 0) {
    const how = outcome.signal ? `was killed by ${outcome.signal}` : `failed with exit code ${outcome.code}`;
    const line = shownStderrLine(outcome);
    throw failure(
      spec,
      `${how}${line ? ` (its first error line: ${line})` : ''}`,
      'Run the command yourself to see why: cardctl runs it with /bin/sh -c, without stdin.',
    );
  }
  const text = outcome.stdout.toString('utf8');
  const secret = text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
  if (secret === '')
    throw failure(spec, 'printed nothing', 'It must print the secret on stdout (cardctl drops one final newline).');
  return secret;
}

/**
 * The first line of a failing command's stderr, when it cannot be the secret: the command printed
 * nothing on stdout (so no secret was on its way out), and the line reads like a message (at
 * least three words, at most 200 characters) with no word that looks like a token. Control characters are escaped.
 * Otherwise nothing: the user runs the command to see its errors.
 */
function shownStderrLine(outcome: Outcome): string | undefined {
  if (outcome.stdout.length > 0) return undefined;
  const first = outcome.stderr
    .toString('utf8')
    .split('\n')
    .map((l) => l.replace(/\r$/, '').trim())
    .find((l) => l !== '');
  if (first === undefined || first.length > 200) return undefined;
  const words = first.split(/\s+/);
  // a token-like word (long, letters and digits mixed) may be a secret: then nothing is shown
  const tokenLike = (w: string): boolean => w.length > 40 || (w.length >= 16 && /[0-9]/.test(w) && /[A-Za-z]/.test(w));
  if (words.length < 3 || words.some(tokenLike)) return undefined;
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(first).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function failure(spec: SecretCommandSpec, what: string, hint: string): CardctlError {
  return new CardctlError(`profile ${spec.profile}: the ${spec.what} command ${what}: ${spec.command}`, {
    kind: 'auth',
    code: 'secret_command_failed',
    hint: `${hint} Change the command with \`cardctl profiles add ${spec.profile} ... --secret-command 'CMD' --force\`; \`cardctl doctor -p ${spec.profile}\` runs it.`,
  });
}

function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of HIDDEN_VARIABLES) delete out[name];
  return out;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') process.kill(pid, 'SIGKILL');
    else process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function run(command: string, seconds: number, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let exited = false;
    let exitedBeforeDeadline = false;
    let tooLong = false;
    const child = spawn(command, {
      shell: true,
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv(env),
      windowsHide: true,
    });
    // cardctl ending (an error, Ctrl-C) must not leave the command's group behind
    const onExit = (): void => killGroup(child.pid);
    const onSignal = (signal: NodeJS.Signals): void => {
      killGroup(child.pid);
      cleanup();
      process.kill(process.pid, signal);
    };
    // a process of another session (setsid, a daemonizing agent) survives the group kill and can
    // keep the pipes open: they are closed here, so the deadline holds whatever the command started
    const stopReading = (): void => {
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      exitedBeforeDeadline = exited;
      killGroup(child.pid);
      stopReading();
    }, seconds * 1000);
    const cleanup = (): void => {
      clearTimeout(timer);
      process.off('exit', onExit);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    process.on('exit', onExit);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > MAX_OUTPUT_BYTES) {
        if (!tooLong) {
          killGroup(child.pid);
          stopReading();
        }
        tooLong = true;
        return;
      }
      stdout.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (errBytes < MAX_STDERR_BYTES) stderr.push(d);
      errBytes += d.length;
    });
    child.on('exit', () => {
      exited = true;
    });
    child.on('error', (err) => {
      cleanup();
      resolve({
        code: null,
        signal: null,
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        timedOut,
        exitedBeforeDeadline,
        tooLong,
        spawnError: err,
      });
    });
    // 'close': the shell exited and its output ended (a background child holding stdout open
    // keeps it waiting, under the same deadline)
    child.on('close', (code, signal) => {
      cleanup();
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr),
        timedOut,
        exitedBeforeDeadline,
        tooLong,
      });
    });
  });
}
