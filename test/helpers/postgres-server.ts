// The postmaster of a test cluster (test/helpers/postgres.ts): run in the foreground as a child of
// the test worker (as the server's user when we are root), its output in DIR/server.log, ready
// when its postmaster.pid says so, shut down by signal (SIGINT fast, SIGQUIT immediate).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePort } from './ports.js';
import {
  type ClusterSettings,
  type PostgresBinaries,
  type ServerUser,
  setPort,
  writeSettings,
} from './postgres-cluster.js';

/** test/setup/children.ts leaves a child with this mark to its file's end (a server a test restarted). */
const OUTLIVES_TEST = Symbol.for('cardctl.test.outlivesTest');

const onPath = (program: string): boolean =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, program)));
const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Server {
  port = 0;
  private child: ChildProcess | undefined;

  constructor(
    private readonly bin: PostgresBinaries,
    readonly dir: string,
    private readonly user: ServerUser | undefined,
    /** never shown: replaced in every error and log this returns */
    private readonly secrets: string[],
  ) {}

  pid(): number | undefined {
    return this.child && !exited(this.child) ? this.child.pid : undefined;
  }

  log(): string {
    let text = '';
    try {
      text = readFileSync(join(this.dir, 'server.log'), 'utf8');
    } catch {}
    return this.redact(text);
  }

  redact(text: string): string {
    return this.secrets.reduce((t, s) => t.replaceAll(s, '[redacted]'), text);
  }

  /** FN's result; its error's message with every secret replaced */
  async redacting<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new Error(this.redact((err as Error).message));
    }
  }

  /** The first start: a free port picked (another if a process takes it before the server binds it). */
  async startOnFreePort(settings: Omit<ClusterSettings, 'port'>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      if (attempt === 1) writeSettings(this.dir, { ...settings, port: this.port });
      else setPort(this.dir, this.port);
      try {
        return await this.start();
      } catch (err) {
        if (attempt === 3 || !/could not bind|Address already in use/.test((err as Error).message)) throw err;
      }
    }
  }

  async start(): Promise<void> {
    if (this.pid()) return;
    const args = ['-D', join(this.dir, 'data')];
    // SIGINT to the postmaster if this worker dies, however it dies (Linux, util-linux)
    const [file, argv] = onPath('setpriv')
      ? ['setpriv', ['--pdeathsig', 'INT', '--', join(this.bin.dir, 'postgres'), ...args]]
      : [join(this.bin.dir, 'postgres'), args];
    const log = openSync(join(this.dir, 'server.log'), 'a');
    const from = this.log().length;
    try {
      this.child = spawn(file, argv, {
        cwd: this.dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' },
        stdio: ['ignore', log, log],
        ...(this.user ? { uid: this.user.uid, gid: this.user.gid } : {}),
      });
    } finally {
      closeSync(log);
    }
    Object.assign(this.child, { [OUTLIVES_TEST]: true });
    this.child.once('error', () => {});
    await this.ready(this.child, from);
  }

  /** Resolves when postmaster.pid names this child and says "ready"; rejects with the log's tail when it exits or hangs. */
  private async ready(child: ChildProcess, logFrom: number): Promise<void> {
    const started = Date.now();
    while (!exited(child) && Date.now() - started < 30_000) {
      let lines: string[] = [];
      try {
        lines = readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n');
      } catch {}
      if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return;
      await sleep(10);
    }
    if (!exited(child)) await this.shutdown('immediate');
    const tail = this.log().slice(logFrom).trim().split('\n').slice(-15).join('\n');
    throw new Error(`PostgreSQL ${this.bin.major} (${this.bin.dir}) did not start on port ${this.port}:\n${tail}`);
  }

  async shutdown(mode: 'fast' | 'immediate'): Promise<void> {
    const child = this.child;
    if (!child || exited(child)) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    const late = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await gone;
    clearTimeout(late);
  }

  /** Shuts the server down and removes its folder. */
  async remove(): Promise<void> {
    await this.shutdown('fast');
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
