// `mock start --save-profiles` never replaces a profile it did not write (issue 29): a user's
// mock-test (the real API, its own key and secret) is kept, the user is told on stderr, and the
// mock's test key goes to mock-test-2; the profiles the mock wrote (mock-test-2, mock-live) are
// recognized on the next start and updated in place, no mock-test-3 or mock-live-2 made.
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { makeSandbox } from '../helpers/cli.js';
import { startMockProcess, type MockProcess } from '../helpers/mock-process.js';

const sandbox = makeSandbox();
const running: MockProcess[] = [];
afterAll(async () => {
  for (const m of running) await m.stop();
  sandbox.cleanup();
});

const USER_KEY = '01JD2Q7N8V3K4M5P6R7S8T9ABC';
const USER_SECRET = randomBytes(32).toString('base64');

async function profiles(): Promise<Record<string, { key_id: string; base_url: string; secret_fingerprint: string }>> {
  const r = await sandbox.run(['profiles', 'list', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return Object.fromEntries(
    (
      JSON.parse(r.stdout).data as Array<{ name: string; key_id: string; base_url: string; secret_fingerprint: string }>
    ).map((p) => [p.name, p]),
  );
}

it("keeps the user's mock-test, saves the mock's as mock-test-2, and updates its own profiles on the next start", async () => {
  const add = await sandbox.run(
    [
      'profiles',
      'add',
      'mock-test',
      '--key-id',
      USER_KEY,
      '--mode',
      'test',
      '--base-url',
      'https://api.example.com',
      '--secret-stdin',
    ],
    { input: `${USER_SECRET}\n` },
  );
  expect(add.code, add.stderr).toBe(0);
  const userProfile = (await profiles())['mock-test']!;

  const first = await startMockProcess(sandbox, ['--save-profiles', '--seed', '3']);
  running.push(first);
  await new Promise((r) => setTimeout(r, 100));
  expect(first.stderr()).toMatch(
    /note: mock-test is a profile this mock did not write \(yours\): kept as it is; this mock's keys are saved as mock-test-2 \(instead of mock-test\)/,
  );
  let p = await profiles();
  expect(p['mock-test']).toEqual(userProfile); // same key, URL and secret
  expect(p['mock-test-2']).toMatchObject({ key_id: first.banner.keys.test.key_id, base_url: first.banner.base_url });
  expect(p['mock-live']).toMatchObject({ key_id: first.banner.keys.live.key_id, base_url: first.banner.base_url });
  // the mock's profile works against the mock
  const listed = await sandbox.run(['customers', 'list', '-p', 'mock-test-2', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(await first.stop()).toBe(0);

  const second = await startMockProcess(sandbox, ['--save-profiles', '--seed', '4']);
  running.push(second);
  p = await profiles();
  expect(Object.keys(p).sort()).toEqual(['mock-live', 'mock-test', 'mock-test-2']);
  expect(p['mock-test']).toEqual(userProfile);
  expect(p['mock-test-2']).toMatchObject({ key_id: second.banner.keys.test.key_id, base_url: second.banner.base_url });
  expect(p['mock-live']).toMatchObject({ key_id: second.banner.keys.live.key_id, base_url: second.banner.base_url });
  expect(await second.stop()).toBe(0);
});
