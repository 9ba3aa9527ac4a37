// `cardctl webhooks verify` and `webhooks sign` through the built CLI.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox } from '../helpers/cli.js';

interface WebhookVector {
  name: string;
  secret: string;
  header: string;
  body_base64: string;
  now: number;
  tolerance: number;
  valid: boolean;
  reason: string;
}
const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/vectors/webhooks.json', import.meta.url), 'utf8'),
) as WebhookVector[];
const sandbox = makeSandbox();
afterAll(() => sandbox.cleanup());

const SECRET = 'whsec_cli_test_0123456789';
const env = { CARDCTL_WEBHOOK_SECRET: SECRET };
const EVENT =
  '{"type":"card.issued","occurred_at":"2026-11-22T10:00:00+00:00","data":{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}}';

function file(name: string, content: string | Buffer): string {
  const path = join(sandbox.dir, name);
  writeFileSync(path, content);
  return path;
}

describe('webhooks verify: every webhook vector', () => {
  it('has vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(8));
  for (let i = 0; i < vectors.length; i += 3) {
    const batch = vectors.slice(i, i + 3);
    it(batch.map((v) => v.name).join(', '), async () => {
      const results = await Promise.all(
        batch.map((v) => {
          const payload = file(`${v.name}.json`, Buffer.from(v.body_base64, 'base64'));
          const args = [
            'webhooks',
            'verify',
            '--header',
            v.header,
            '--payload',
            payload,
            '--now',
            String(v.now),
            '--tolerance',
            String(v.tolerance),
            '--json',
          ];
          return sandbox.run(args, { env: { CARDCTL_WEBHOOK_SECRET: v.secret } });
        }),
      );
      results.forEach((r, j) => {
        const v = batch[j]!;
        expect(r.code, `${v.name}: ${r.stderr}`).toBe(v.valid ? 0 : 3);
        const out = JSON.parse(r.stdout) as {
          valid: boolean;
          reason: string;
          timestamp?: number;
          age_seconds?: number;
          message?: string;
        };
        expect({ valid: out.valid, reason: out.reason }, v.name).toEqual({ valid: v.valid, reason: v.reason });
        // The header's own timestamp and the age the tolerance was judged on, when the header has one.
        const t = /(?:^|,)\s*t=(\d+)/.exec(v.header)?.[1];
        if (t !== undefined && out.timestamp !== undefined) expect(out.age_seconds, v.name).toBe(v.now - Number(t));
        if (!v.valid) expect(out.message, v.name).toMatch(/\S/);
      });
    });
  }
});

describe('webhooks sign and verify', () => {
  it('round trip: a signed payload verifies; a changed byte does not', async () => {
    const payload = file('event.json', EVENT);
    const s = await sandbox.run(['webhooks', 'sign', '--payload', payload, '--timestamp', '1763800000'], { env });
    expect(s.code, s.stderr).toBe(0);
    const header = s.stdout.trim();
    expect(header).toMatch(/^t=1763800000, v1=[0-9a-f]{64}$/);
    const ok = await sandbox.run(
      ['webhooks', 'verify', '--header', header, '--payload', payload, '--now', '1763800010'],
      { env },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^valid/);
    const tampered = file('tampered.json', EVENT.replace('card.issued', 'card.issuee'));
    const bad = await sandbox.run(
      ['webhooks', 'verify', '--header', header, '--payload', tampered, '--now', '1763800010'],
      { env },
    );
    expect(bad.code).toBe(3);
  });

  it('reads the payload from stdin and the default clock is now', async () => {
    const s = await sandbox.run(['webhooks', 'sign', '--payload', '-'], { env, input: EVENT });
    expect(s.code, s.stderr).toBe(0);
    const v = await sandbox.run(['webhooks', 'verify', '--header', s.stdout.trim(), '--payload', '-', '--json'], {
      env,
      input: EVENT,
    });
    expect(v.code, v.stderr).toBe(0);
    const out = JSON.parse(v.stdout) as { valid: boolean; reason: string; age_seconds: number; timestamp: number };
    expect(out).toMatchObject({ valid: true, reason: 'ok' });
    expect(Math.abs(out.age_seconds)).toBeLessThan(60);
    expect(s.stdout).toContain(`t=${out.timestamp},`);
  });

  it('a re-serialized body fails with the hint to pass the raw bytes', async () => {
    const payload = file('raw.json', EVENT);
    const s = await sandbox.run(['webhooks', 'sign', '--payload', payload, '--timestamp', '1763800000'], { env });
    const pretty = file('pretty.json', JSON.stringify(JSON.parse(EVENT), null, 2));
    const r = await sandbox.run(
      ['webhooks', 'verify', '--header', s.stdout.trim(), '--payload', pretty, '--now', '1763800000'],
      { env },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/re-serialized/);
    expect(r.stderr).toMatch(/raw body bytes/);
    expect(r.stderr).not.toContain(SECRET);
    const j = await sandbox.run(
      ['webhooks', 'verify', '--header', s.stdout.trim(), '--payload', pretty, '--now', '1763800000', '--json'],
      { env },
    );
    expect(j.code).toBe(3);
    // --json carries what the text says: the diagnosis and the hint as their own fields.
    const out = JSON.parse(j.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      valid: false,
      reason: 'signature_mismatch',
      reserialized_as: expect.stringMatching(/JSON/),
    });
    expect(out.hint).toMatch(/raw body bytes/);
    expect(j.stdout).not.toContain(SECRET);
  });

  it('an old delivery says how old and how to check it', async () => {
    const payload = file('old.json', EVENT);
    const s = await sandbox.run(['webhooks', 'sign', '--payload', payload, '--timestamp', '1763800000'], { env });
    const r = await sandbox.run(
      ['webhooks', 'verify', '--header', s.stdout.trim(), '--payload', payload, '--now', '1763801000'],
      { env },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/1000 s old/);
    expect(r.stderr).toMatch(/--now/);
  });

  it('sign --json gives the headers of a whole delivery', async () => {
    const payload = file('delivery.json', EVENT);
    const r = await sandbox.run(['webhooks', 'sign', '--payload', payload, '--timestamp', '1763800000', '--json'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { header: string; headers: Record<string, string> };
    expect(out.headers['Content-Type']).toBe('application/json');
    expect(out.headers['X-Service-Event']).toBe('card.issued');
    expect(out.headers['X-Service-Delivery']).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(out.headers['X-Service-Signature']).toBe(out.header);
    expect(r.stdout).not.toContain(SECRET);
  });

  it('without a webhook secret: exit 2 and where to put it', async () => {
    const payload = file('nosecret.json', EVENT);
    const r = await sandbox.run(['webhooks', 'sign', '--payload', payload]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CARDCTL_WEBHOOK_SECRET|profile/i);
  });
});
