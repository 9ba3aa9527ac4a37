// Where running mocks are recorded: one file per running mock, `mocks/<pid>.json` (0600) in the
// config folder, written by `cardctl mock start` and removed when that mock stops. A second mock
// never replaces the first's record and stopping one never removes another's. The control
// commands use the newest running mock, and say so when more than one runs.
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processRuns } from '../../process-runs.js';

export const MOCKS_DIR_NAME = 'mocks';

export interface MockRecord {
  control_url: string;
  control_token: string;
  base_url: string;
  pid: number;
  /** ISO time the mock started */
  started_at: string;
  /** it wrote the mock-test and mock-live profiles */
  profiles: boolean;
  /** the real path of its --state file */
  state_file?: string;
}

/** The folder of records, in the config folder (the profile store computes it; loaded lazily). */
export async function mocksDir(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { configDir } = await import('../../profiles/store.js');
  return join(configDir(env), MOCKS_DIR_NAME);
}

function isRecord(v: unknown): v is MockRecord {
  const r = v as MockRecord;
  return (
    !!r &&
    typeof r === 'object' &&
    typeof r.control_url === 'string' &&
    typeof r.control_token === 'string' &&
    Number.isInteger(r.pid) &&
    typeof r.started_at === 'string'
  );
}

/** Records of the mocks still running, newest first; records of mocks that died unannounced are removed. */
export function runningMocks(dir: string): MockRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const found: MockRecord[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let rec: unknown;
    try {
      rec = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // being written, or damaged: not a mock the commands can use
    }
    if (!isRecord(rec)) continue;
    if (processRuns(rec.pid)) found.push(rec);
    else rmSync(file, { force: true });
  }
  return found.sort((a, b) => b.started_at.localeCompare(a.started_at) || b.pid - a.pid);
}

/** Writes this mock's record (atomically: a temporary file renamed); returns its path. */
export function recordMock(dir: string, rec: MockRecord): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${rec.pid}.json`);
  const tmp = `${file}.${process.hrtime.bigint()}.tmp`;
  writeFileSync(tmp, JSON.stringify(rec) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

/** Removes a record, only if it still describes this mock (its token). */
export function forgetMock(file: string, token: string): void {
  if (!file) return;
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { control_token?: string };
    if (saved.control_token === token) rmSync(file, { force: true });
  } catch {
    // nothing to clean up
  }
}

/**
 * The running mock whose state file is `file` (a real path) under another real path: a hard link,
 * same device and inode. Or undefined. Symlinks and `..` are resolved before the lock (startMock);
 * a hard link only shows here.
 */
export function mockOnSameFile(dir: string, file: string): MockRecord | undefined {
  const id = identity(file);
  if (!id) return undefined;
  return runningMocks(dir).find((m) => m.state_file && m.state_file !== file && identity(m.state_file) === id);
}

function identity(file: string): string | null {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/** How messages name a running mock. */
export const describeMock = (m: MockRecord): string => `pid ${m.pid}, ${m.base_url}, started ${m.started_at}`;
