// Named copies of the whole state, for test suites that reset between tests. Kept as JSON text:
// restoring is one JSON.parse (a fresh copy each time). With --state they are files in a folder
// beside the state file (`FILE.snapshots/NAME.json`) and survive a restart; without, in memory.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateFolder, isMockState, writeFileAtomic, StateFileError } from './persistence.js';
import { KEYED_COLLECTIONS } from './tracker.js';
import type { MockState } from './state.js';

/** Decided: letters, digits, `.`, `_`, `-`; starting with a letter or digit; at most 64. No path can be formed. */
export const SNAPSHOT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const SNAPSHOT_NAME_HINT =
  'must be 1 to 64 letters, digits, dots, underscores or dashes, starting with a letter or digit';

export const snapshotNameProblem = (name: unknown): string | null =>
  typeof name === 'string' && SNAPSHOT_NAME_RE.test(name) && !name.includes('..')
    ? null
    : `The name ${SNAPSHOT_NAME_HINT}.`;

export interface SnapshotInfo {
  name: string;
  saved_at: string;
  bytes: number;
  /** records in it (saved and restored answers) */
  objects?: number;
}

/** Records in the state (cards, customers, events, ...): what a restore rebuilds. */
export function objectCount(s: MockState): number {
  let n = s.events.length + s.products.length + s.faults.length;
  const raw = s as unknown as Record<string, Record<string, unknown> | undefined>;
  for (const c of KEYED_COLLECTIONS) n += Object.keys(raw[c] ?? {}).length;
  for (const list of Object.values(s.transactions)) n += list.length;
  return n;
}

interface Held {
  json: string;
  info: SnapshotInfo;
}

export class SnapshotStore {
  private readonly memory = new Map<string, Held>();

  /** `folder`: where snapshot files live (with --state), or null to keep them in memory. */
  constructor(readonly folder: string | null) {}

  private fileOf(name: string): string {
    return join(this.folder!, `${name}.json`);
  }

  save(name: string, state: MockState, savedAt: Date): SnapshotInfo {
    // an answer still in flight has no outcome to restore
    const inFlight = Object.values(state.idempotency).some((r) => !r.reply && !r.async_card_id);
    const idempotency = inFlight
      ? Object.fromEntries(Object.entries(state.idempotency).filter(([, r]) => r.reply || r.async_card_id))
      : state.idempotency;
    const json = JSON.stringify(inFlight ? { ...state, idempotency } : state);
    const info: SnapshotInfo = {
      name,
      saved_at: savedAt.toISOString(),
      bytes: Buffer.byteLength(json),
      objects: objectCount(state),
    };
    if (this.folder) {
      ensureStateFolder(this.folder);
      writeFileAtomic(this.fileOf(name), json);
    }
    this.memory.set(name, { json, info });
    return info;
  }

  /** A fresh copy of the named state and its JSON text, or null when there is no such snapshot. */
  load(name: string): { state: MockState; json: string } | null {
    let held = this.memory.get(name);
    // a snapshot this process saved is whole by construction; one read from a file is checked
    const fromFile = !held;
    if (!held && this.folder && existsSync(this.fileOf(name))) {
      const file = this.fileOf(name);
      const json = readFileSync(file, 'utf8');
      held = { json, info: { name, saved_at: statSync(file).mtime.toISOString(), bytes: Buffer.byteLength(json) } };
    }
    if (!held) return null;
    let state: unknown;
    try {
      state = JSON.parse(held.json);
    } catch {
      state = null;
    }
    if (fromFile && !isMockState(state))
      throw new StateFileError(`the snapshot ${this.folder ? this.fileOf(name) : name} is damaged: save it again`);
    if (!this.memory.has(name)) this.memory.set(name, { json: held.json, info: held.info });
    return { state: state as MockState, json: held.json };
  }

  list(): SnapshotInfo[] {
    const byName = new Map<string, SnapshotInfo>();
    if (this.folder && existsSync(this.folder)) {
      for (const f of readdirSync(this.folder)) {
        const name = f.endsWith('.json') ? f.slice(0, -5) : '';
        if (snapshotNameProblem(name) !== null) continue;
        const st = statSync(join(this.folder, f));
        if (st.isFile()) byName.set(name, { name, saved_at: st.mtime.toISOString(), bytes: st.size });
      }
    }
    for (const [name, held] of this.memory)
      byName.set(name, { name, saved_at: held.info.saved_at, bytes: held.info.bytes });
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
