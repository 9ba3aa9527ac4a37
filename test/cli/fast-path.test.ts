// The start-up fast path must be invisible: same output, same exit codes as oclif, and it must
// hand every command line it does not fully understand back to oclif.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFast } from '../../src/cli/fast-path.js';
import { ROOT, runCli } from '../helpers/cli.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'cardctl-fast-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';
const WEBHOOK_SECRET = 'whsec_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const env = { CARDCTL_API_SECRET: SECRET, CARDCTL_WEBHOOK_SECRET: WEBHOOK_SECRET, CARDCTL_CONFIG_DIR: join(dir, 'config') };
const payload = join(dir, 'event.json');
writeFileSync(payload, '{"type":"card.issued","occurred_at":"2026-11-22T10:00:00+00:00","data":{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}}');

const signArgs = ['sign', '--method', 'post', '--path', '/api/v1/cards', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  '--timestamp', '1763800000', '--nonce', 'n-1', '--data', '{"amount_minor":5}', '--idempotency-key', 'k-1'];

const cases: Array<[string, string[]]> = [
  ['sign --json', [...signArgs, '--json']],
  ['sign (human)', signArgs],
  ['sign with a bad timestamp', [...signArgs.slice(0, 7), '--timestamp', '17638000000000x', '--json']],
  ['sign with a repeated flag', [...signArgs, '--nonce', 'n-2', '--json']],
  ['webhooks sign', ['webhooks', 'sign', '--payload', payload, '--timestamp', '1763800000']],
  ['webhooks verify valid', ['webhooks', 'verify', '--header', 't=1763800000, v1=821449f0ab09d19bdaa1f50339d2c293b82d39cd211fba0e0cca0a87beda0ea5', '--payload', payload, '--now', '1763800000', '--json']],
  ['webhooks verify stale', ['webhooks', 'verify', '--header', 't=1763800000, v1=821449f0ab09d19bdaa1f50339d2c293b82d39cd211fba0e0cca0a87beda0ea5', '--payload', payload, '--now', '1763809999', '--tolerance', '60']],
  ['webhooks verify bad tolerance', ['webhooks', 'verify', '--header', 't=1', '--payload', payload, '--tolerance', 'soon']],
];

describe('start-up fast path', () => {
  for (const [name, args] of cases) {
    it(`${name}: same stdout, stderr and exit code as through oclif`, async () => {
      const fast = await runCli(args, { env });
      const slow = await runCli(args, { env: { ...env, CARDCTL_NO_FAST_PATH: '1' } });
      expect(fast.code).toBe(slow.code);
      expect(fast.stdout).toBe(slow.stdout);
      const pidless = (s: string) => s.replace(/\(node:\d+\)/g, '(node)'); // oclif's dev-mode warnings carry the pid
      expect(pidless(fast.stderr)).toBe(pidless(slow.stderr));
    });
  }

  it('takes the command lines it fully understands', () => {
    expect(parseFast(['sign', '--method', 'GET', '--path', '/cards', '--json'], manifest)).toMatchObject({ id: 'sign', flags: { method: 'GET', path: '/cards', json: true } });
    expect(parseFast(['webhooks', 'sign', '--payload=-'], manifest)).toMatchObject({ id: 'webhooks:sign', flags: { payload: '-' } });
  });

  it('hands everything else to oclif', () => {
    expect(parseFast(['sign', '--help'], manifest)).toBeNull();
    expect(parseFast(['sign', '--method', 'GET'], manifest)).toBeNull(); // --path missing: oclif's usage error
    expect(parseFast(['sign', '--method', 'GET', '--path', '/c', '--bogus'], manifest)).toBeNull();
    expect(parseFast(['sign', '--method', 'GET', '--path', '/c', 'extra'], manifest)).toBeNull();
    expect(parseFast(['sign', '--method', 'GET', '--path', '/c', '--data', '--json'], manifest)).toBeNull();
    expect(parseFast(['sign', '--method', 'GET', '--path', '/c', '--method', 'POST'], manifest)).toBeNull();
    expect(parseFast(['sign', 'diagnose', '--request', 'x'], manifest)).toBeNull();
    expect(parseFast(['request', 'GET', '/cards'], manifest)).toBeNull();
  });

  it('a missing required flag still gets oclif\'s usage error and exit 2', async () => {
    const r = await runCli(['sign', '--method', 'GET'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/path/);
  });
});
