// Small answers of the mock commands that left the user stuck (issue 29): a snapshot restore of a
// name that does not exist says which exist; `mock faults list` says that `mock faults` lists
// them; `mock wallets` fits 80 columns, its --json keeps every field.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeSandbox, type CliOptions } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startMockProcess, type MockProcess } from '../helpers/mock-process.js';

const sandbox = makeSandbox();
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sandbox)(args, options);
let mock: MockProcess;
beforeAll(async () => {
  mock = await startMockProcess(sandbox, ['--seed', '29']);
});
afterAll(async () => {
  await mock?.stop();
  sandbox.cleanup();
});

it('mock snapshot restore of an unknown name: how to save one, then which are saved', async () => {
  const none = await runIn(['mock', 'snapshot', 'restore', 'nosuch']);
  expect(none.code).not.toBe(0);
  expect(none.stderr).toMatch(
    /no snapshot named "nosuch"; none is saved yet: save one with `cardctl mock snapshot save NAME`/,
  );
  expect((await runIn(['mock', 'snapshot', 'save', 'prepared'])).code).toBe(0);
  const some = await runIn(['mock', 'snapshot', 'restore', 'nosuch']);
  expect(some.stderr).toMatch(
    /no snapshot named "nosuch"; the saved ones are prepared \(`cardctl mock snapshot list`\)/,
  );
});

it('mock faults list: `mock faults` itself lists them', async () => {
  const r = await runIn(['mock', 'faults', 'list']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/`cardctl mock faults` itself shows them/);
  expect(r.stderr).toMatch(/Run `cardctl mock faults`/);
});

it('mock wallets fits 80 columns; --json keeps every field', async () => {
  const r = await runIn(['mock', 'wallets']);
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^MERCHANT_ID\s+MODE\s+CCY\s+BALANCE_MINOR\s+CARDS_MINOR\s+FEES_MINOR$/);
  expect(lines).toHaveLength(3);
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  const json = await runIn(['mock', 'wallets', '--json']);
  expect(Object.keys(JSON.parse(json.stdout).data[0]).sort()).toEqual(
    [
      'balance_minor',
      'cards_balance_minor',
      'currency',
      'deposits_credited_minor',
      'fees_collected_minor',
      'initial_balance_minor',
      'merchant_id',
      'mode',
      'reserved_minor',
    ].sort(),
  );
});
