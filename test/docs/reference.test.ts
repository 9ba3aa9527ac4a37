// docs/reference.md is generated from the command manifest: it must match what
// scripts/reference.mjs makes of the manifest this build wrote, and list every command.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

describe('docs/reference.md', () => {
  it('is up to date with oclif.manifest.json (run `npm run reference` after changing a command)', async () => {
    const { reference } = (await import(pathToFileURL(join(ROOT, 'scripts', 'reference.mjs')).href)) as {
      reference: (m: unknown, p: unknown) => string;
    };
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { id: string; hidden?: boolean }>;
    };
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as unknown;
    const committed = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');
    const fresh = reference(manifest, pjson);
    expect(committed === fresh, 'docs/reference.md is stale: run `npm run reference` and commit it').toBe(true);
    for (const c of Object.values(manifest.commands).filter((x) => !x.hidden))
      expect(committed).toContain(`### \`cardctl ${c.id.replaceAll(':', ' ')}\``);
  });

  it('marks what is required and shows --batch as the other way', () => {
    const text = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');
    expect(text).toContain(
      'cardctl cards issue --customer ID --amount MINOR [--product ID] [--idempotency-key KEY] [--wait] [--wait-timeout SECONDS] [API FLAGS]\ncardctl cards issue --batch FILE ',
    );
    expect(text).toContain(
      'cardctl cards recharge CARD --amount MINOR [--idempotency-key KEY] [API FLAGS]\ncardctl cards recharge --batch FILE ',
    );
    expect(text).toContain('cardctl mock faults add --operation OPERATION --kind KIND ');
  });
});
