// A real Squid forward proxy on loopback for the tests that need one (`it.runIf(needs('squid'))`;
// CI installs it: .ci/run). `refuse: 'all'` denies every request (403 ERR_ACCESS_DENIED, and a
// CONNECT refused the same way); `refuse: 'unauthenticated'` asks for proxy credentials (407).
// It runs in the foreground (-N) with its files in a temp folder, and is stopped in close().
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface Squid {
  url: string;
  /** its log, for a failing test's message */
  log(): string;
  close(): Promise<void>;
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });

export async function startSquid(refuse: 'all' | 'unauthenticated'): Promise<Squid> {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-squid-'));
  chmodSync(dir, 0o777); // squid started as root works as its own user
  const port = await freePort();
  const rules =
    refuse === 'all'
      ? ['http_access deny all']
      : [
          `auth_param basic program /usr/lib/squid/basic_ncsa_auth ${join(dir, 'passwd')}`,
          'auth_param basic realm cardctl-test',
          'acl authed proxy_auth REQUIRED',
          'http_access deny !authed',
          'http_access deny all',
        ];
  writeFileSync(join(dir, 'passwd'), '');
  writeFileSync(
    join(dir, 'squid.conf'),
    [
      `http_port 127.0.0.1:${port}`,
      'pid_filename none',
      'cache deny all',
      'cache_mem 8 MB',
      'access_log none',
      `cache_log ${join(dir, 'cache.log')}`,
      `coredump_dir ${dir}`,
      'netdb_filename none',
      'shutdown_lifetime 0 seconds',
      ...rules,
      '',
    ].join('\n'),
  );
  let output = '';
  const child: ChildProcess = spawn('squid', ['-N', '-f', join(dir, 'squid.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200 && !(await accepts(port)); i++) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!(await accepts(port))) {
    await close();
    throw new Error(`squid did not start on port ${port}: ${output}`);
  }
  return { url: `http://127.0.0.1:${port}`, log: () => output, close };
}
