// `mock start --save-profiles` (issue 29): the mock's keys saved as profiles mock-test and
// mock-live, without ever replacing a profile the mock did not write. A profile of that name
// that a user made (pointing at the real API, with its own key and secret) is kept and said so
// on stderr; the mock's is saved under the next free name (mock-test-2, ...). The mock knows its
// own by `mock-profiles.json` in the config folder (beside the store): each name it wrote with the key id and
// base URL it wrote (a profile a user later put under that name differs in them). The mark is
// kept beside the store, not in it: an older cardctl refuses a store with a field it does not
// know, and would then refuse every command. A profile of these names from before the mark
// (written by an older `--save-profiles`) is recognized by its base URL: plain http on loopback.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MockServer } from '../../mock/index.js';
import type { StoredProfile } from '../../profiles/types.js';

const MARKS_FILE = 'mock-profiles.json';
/** a user who made mock-test-2 to mock-test-20 too: the mock's profile is not saved */
const MAX_SUFFIX = 20;

type Marks = Record<string, { keyId: string; baseUrl: string }>;

function readMarks(dir: string): Marks {
  try {
    const raw = JSON.parse(readFileSync(join(dir, MARKS_FILE), 'utf8')) as unknown;
    return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Marks) : {};
  } catch {
    return {};
  }
}

function writeMarks(dir: string, marks: Marks): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, MARKS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(marks, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

const LEGACY_MOCK_URL = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/api\/v1$/;

/** The mock wrote this profile (its mark matches), or an older cardctl's mock did (no mark, a loopback http URL). */
function writtenByMock(name: string, p: StoredProfile, marks: Marks): boolean {
  const mark = Object.hasOwn(marks, name) ? marks[name] : undefined;
  if (mark) return mark.keyId === p.keyId && mark.baseUrl === p.baseUrl;
  return LEGACY_MOCK_URL.test(p.baseUrl);
}

export interface SavedProfiles {
  /** the names the mock's test and live keys were saved under */
  test: string;
  live: string;
  /** the user's profiles kept in place of the usual names */
  kept: string[];
}

/** Saves the mock's two profiles; `dir` is the config folder (the marks file goes there). */
export async function saveMockProfiles(mock: MockServer, dir: string, env: NodeJS.ProcessEnv): Promise<SavedProfiles> {
  const { addProfile, loadStore } = await import('../../profiles/store.js');
  const marks = readMarks(dir);
  const saved: Partial<SavedProfiles> & { kept: string[] } = { kept: [] };
  for (const mode of ['test', 'live'] as const) {
    const input = {
      keyId: mock.keys[mode].keyId,
      secret: mock.keys[mode].secret,
      mode,
      baseUrl: mock.baseUrl,
      webhookSecret: mock.webhookSecret,
    };
    for (let n = 1; saved[mode] === undefined; n++) {
      const name = n === 1 ? `mock-${mode}` : `mock-${mode}-${n}`;
      if (n > MAX_SUFFIX) throw new Error(`profiles mock-${mode} to ${name} all exist and were not written by a mock`);
      const existing = (await loadStore(env)).profiles.get(name);
      const ours = existing !== undefined && writtenByMock(name, existing, marks);
      if (existing && !ours) {
        if (n === 1) saved.kept.push(name);
        continue;
      }
      try {
        const { profile } = await addProfile({ name, ...input }, { overwrite: ours, env });
        marks[name] = { keyId: profile.keyId, baseUrl: profile.baseUrl };
        saved[mode] = name;
      } catch (err) {
        if ((err as { code?: string }).code !== 'profile_exists') throw err; // made meanwhile: the next name
      }
    }
  }
  writeMarks(dir, marks);
  return saved as SavedProfiles;
}

/** The stderr note when a user's profile was kept: which, and where the mock's went. */
export function keptNote(saved: SavedProfiles): string {
  if (saved.kept.length === 0) return '';
  const moved = saved.kept.map((name) => `${name.endsWith('test') ? saved.test : saved.live} (instead of ${name})`);
  return (
    `note: ${saved.kept.join(' and ')} ${saved.kept.length > 1 ? 'are profiles' : 'is a profile'} this mock did not write (yours): kept as ${saved.kept.length > 1 ? 'they are' : 'it is'}; ` +
    `this mock's keys are saved as ${moved.join(' and ')}. Use \`-p ${saved.test}\`, or remove yours (\`cardctl profiles remove ${saved.kept[0]}\`) to let the mock save under the usual names.\n`
  );
}
