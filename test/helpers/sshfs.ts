// A real network file system for the tests that need one (`describe.runIf(needsSshfs())`; CI
// installs sshfs and openssh-server: .ci/run): an sshd of the test's own on a free loopback port
// (its own host key, one authorized key, its files in a temp folder), and a folder of this machine
// mounted through it with sshfs (FUSE: mountinfo calls it `fuse.sshfs`), at a mount point whose
// name has a space (mountinfo writes it `\040`). close() unmounts and stops that sshd, also when
// the test failed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { has, needs } from './programs.js';
import { freePort } from './ports.js';

const SSHD = '/usr/sbin/sshd';

/** For `describe.runIf(needsSshfs())`: sshfs, sshd and FUSE's device; a skip is named `sshfs` at the end of `npm test`. */
export const needsSshfs = (): boolean => needs('sshfs', has('sshfs') && existsSync(SSHD) && existsSync('/dev/fuse'));

export interface Sshfs {
  /** the mounted folder (on the network file system) */
  mountPoint: string;
  /** the same folder on this machine's own disk, behind the mount */
  behind: string;
  close(): Promise<void>;
}

export async function mountSshfs(): Promise<Sshfs> {
  if (!has('sshfs') || !existsSync(SSHD) || !existsSync('/dev/fuse'))
    throw new Error(
      'a network file system for this test needs sshfs, an sshd and FUSE (/dev/fuse): `apt-get install sshfs openssh-server` (what .ci/run does)',
    );
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-sshfs-'));
  const [behind, mountPoint] = [join(dir, 'behind'), join(dir, 'mount point')];
  mkdirSync(behind);
  mkdirSync(mountPoint);
  for (const key of ['host', 'client'])
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, key)], { stdio: 'ignore' });
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')), { mode: 0o600 });
  const port = await freePort();
  const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AllowUsers ${user}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true }); // its privilege separation folder
  const stopSshd = () => {
    try {
      process.kill(Number(readFileSync(join(dir, 'sshd.pid'), 'utf8')), 'SIGTERM');
    } catch {
      // not started, or gone
    }
  };
  try {
    execFileSync(SSHD, ['-f', join(dir, 'sshd_config'), '-E', join(dir, 'sshd.log')], { stdio: 'ignore' });
    execFileSync(
      'sshfs',
      [
        '-p',
        String(port),
        '-o',
        `IdentityFile=${join(dir, 'client')},StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes`,
        `${user}@127.0.0.1:${behind}`,
        mountPoint,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 },
    );
  } catch (err) {
    stopSshd();
    const log = existsSync(join(dir, 'sshd.log')) ? readFileSync(join(dir, 'sshd.log'), 'utf8') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`sshfs could not mount a folder through a test sshd: ${(err as Error).message}\n${log}`);
  }
  return {
    mountPoint,
    behind,
    async close() {
      const unmount = has('fusermount3') ? ['fusermount3', ['-uz', mountPoint]] : ['umount', ['-l', mountPoint]];
      spawnSync(unmount[0] as string, unmount[1] as string[], { stdio: 'ignore' });
      stopSshd();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
