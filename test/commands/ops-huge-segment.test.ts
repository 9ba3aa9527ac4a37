// An hour of the journal too large to read at once (a segment past V8's longest string): `ops
// list` says which file and what to do instead of "Cannot create a string longer than ...", and
// the other hours still list. The file is sparse: it takes no disk.
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox } from '../helpers/cli.js';

const sb = makeSandbox();
afterAll(() => sb.cleanup());

describe('ops list and a segment larger than can be read at once', () => {
  it('names the file, exits 1 with a hint, and --since past it still lists', async () => {
    const day = join(sb.stateDir, 'cardctl', 'journal', 'segments', '2026-11-26');
    mkdirSync(day, { recursive: true });
    const huge = join(day, '03.ndjson');
    writeFileSync(huge, '');
    truncateSync(huge, 600 * 1024 * 1024);
    const r = await sb.run(['ops', 'list', '--json']);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe('journal_segment_too_large');
    expect(error.message).toContain(huge);
    expect(error.message).toContain('600 MiB');
    expect(error.hint).toContain('--since');
    expect(r.stderr).not.toMatch(/Cannot create a string|at .*\.js:\d+/);
    const later = await sb.run(['ops', 'list', '--since', '2026-11-27']);
    expect(later.code, later.stderr).toBe(0);
  });
});
