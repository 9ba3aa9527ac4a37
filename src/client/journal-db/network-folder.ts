// A local journal whose folder is on a network file system (NFS, SMB, sshfs, a bucket mounted
// with FUSE...). SQLite's WAL keeps its index in a memory-mapped file that only processes of one
// host share, and its locks do not hold across hosts on most network file systems: two machines
// given one state folder on a share (pods mounting one NFS volume, say) could each find a key not
// sent and both send it. So money is not sent from such a journal: a fleet shares a PostgreSQL
// journal instead. Reads still work (`ops list`, `ops copy --to` into PostgreSQL: the way out).
// Linux only (its statfs types and /proc/self/mountinfo name the file system); elsewhere, and on
// a file system it cannot name, nothing is said.
import { readFileSync, realpathSync, statfsSync } from 'node:fs';
import { CardctlError } from '../../errors.js';

/** statfs's f_type of Linux's network file systems (linux/magic.h and the file systems' own). */
const NETWORK_TYPES = new Map<number, string>([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xfe534d42, 'smb2'],
  [0xff534d42, 'cifs'],
  [0x00c36400, 'ceph'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'afs'],
  [0x564c, 'ncp'],
  [0x73757245, 'coda'],
  [0x0bd00bd0, 'lustre'],
  [0x47504653, 'gpfs'],
  [0x01161970, 'gfs2'],
  [0x7461636f, 'ocfs2'],
]);

/** FUSE's f_type: the file system behind it is named in mountinfo (`fuse.sshfs`). */
const FUSE = 0x65735546;

/** FUSE file systems that reach other machines (mountinfo's `fuse.NAME`). */
const NETWORK_FUSE =
  /^fuse\.(sshfs|s3fs|gcsfuse|goofys|rclone|mountpoint-s3|blobfuse2?|juicefs|glusterfs|ceph-fuse|cephfs|davfs|curlftpfs|moosefs|mfsmount|lizardfs|seaweedfs|ossfs|cosfs|geesefs|sshfs-mux)$/;

/** The network file system `folder` is on (`nfs`, `fuse.sshfs`...), or undefined: a local disk, or one it cannot tell. */
export function networkFileSystem(folder: string): string | undefined {
  if (process.platform !== 'linux') return undefined;
  let type: number;
  try {
    type = statfsSync(folder).type;
  } catch {
    return undefined; // the journal's own open says what is wrong with the folder
  }
  const known = NETWORK_TYPES.get(type);
  if (known) return known;
  if (type !== FUSE) return undefined;
  const fuse = mountTypeOf(folder);
  return fuse && NETWORK_FUSE.test(fuse) ? fuse : undefined;
}

/** The file-system type mountinfo gives the mount `folder` is under (the longest mount point above it). */
function mountTypeOf(folder: string): string | undefined {
  let path: string;
  let lines: string[];
  try {
    path = realpathSync(folder);
    lines = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  } catch {
    return undefined;
  }
  let best: { at: string; type: string } | undefined;
  for (const line of lines) {
    // ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS
    const fields = line.split(' ');
    const dash = fields.indexOf('-', 6);
    if (dash < 0) continue;
    const at = unescapeMount(fields[4]!);
    const under = at === '/' || path === at || path.startsWith(`${at}/`);
    if (under && (!best || at.length >= best.at.length)) best = { at, type: fields[dash + 1]! };
  }
  return best?.type;
}

/** mountinfo writes a space, a tab, a newline and a backslash of a path as octal escapes (\040). */
const unescapeMount = (s: string): string =>
  s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));

/** Refuses to send money from a local journal in `folder` (the state folder) on a network file system. */
export function refuseNetworkFolder(folder: string): void {
  const fs = networkFileSystem(folder);
  if (!fs) return;
  throw new CardctlError(
    `the operations journal's folder ${folder} is on a network file system (${fs}): SQLite keeps a journal's locks and index on one machine only, so two machines sharing this folder could both send one key; no money operation is sent from it.`,
    {
      kind: 'usage',
      code: 'journal_network_folder',
      hint: 'Put CARDCTL_STATE_DIR (or XDG_STATE_HOME) on a disk of this machine. To share one journal across machines, use PostgreSQL: --journal postgres://USER@HOST/DATABASE or CARDCTL_JOURNAL_URL (docs/journal.md, "A journal shared by a fleet"); `cardctl ops copy --to postgres://...` copies this one into it.',
    },
  );
}
