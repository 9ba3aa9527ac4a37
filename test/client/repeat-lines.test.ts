// The repeat check (src/client/batch/repeats.ts) reads the last day's segments through a filter
// that looks at each line's text before parsing it (mayRepeat): a send whose request text (method,
// route, body SHA-256) is no candidate's is left out, with its outcome and resolution lines. It must
// keep every record the check could use: each send whose request text is a candidate's, and every
// record of such a send's id. Random segments written as the journal writes them (checksummed
// lines), with escaped and repeated fields, other keys' lines, damaged lines and no final newline;
// read whole, then piece by piece with tiny buffers (decodeChunks), which must give the same lines.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { RowDigests } from '../../src/client/batch/digests.js';
import { BodyPrefixes, mayRepeat } from '../../src/client/batch/repeats.js';
import { entryRequest, requestText } from '../../src/client/batch/request-identity.js';
import {
  decodeChunks,
  decodeText,
  encodeJson,
  isDamaged,
  type RawRecord,
} from '../../src/client/journal-store/lines.js';
import { JournalStore } from '../../src/client/journal-store/store.js';

const root = mkdtempSync(join(tmpdir(), 'cardctl-repeat-lines-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const time = '2026-11-27T10:00:00.000Z';
const SHAS = ['a'.repeat(64), 'b'.repeat(64), `${'a'.repeat(6)}${'c'.repeat(58)}`, 'd'.repeat(64)]; // the third shares the first's 24-bit prefix
const PATHS = ['/api/v1/cards/C1/recharge', '/api/v1/cards/C2/recharge', '/cards/C1/recharge', '/api/v1/cards'];
const METHODS = ['POST', 'post'];

// an op's id is its own (ids are unique: src/client/journal.ts makes them): op_1..op_5 each at most once
const opArb = fc.record({
  id: fc.constantFrom('op_1', 'op_2', 'op_3', 'op_4', 'op_5'),
  method: fc.constantFrom(...METHODS),
  path: fc.constantFrom(...PATHS),
  sha: fc.constantFrom(...SHAS),
  escaped: fc.boolean(), // the path written with an escape: its text is not its value
});
const lineArb = fc.oneof(
  opArb.map((o) => ({ kind: 'op' as const, ...o })),
  fc.record({ kind: fc.constant('outcome' as const), id: fc.constantFrom('op_1', 'op_2', 'op_3', 'op_4', 'op_5') }),
  fc.record({ kind: fc.constant('resolution' as const), id: fc.constantFrom('op_1', 'op_2', 'op_3') }),
  fc.constant({ kind: 'damaged' as const }),
  fc.constant({ kind: 'repeated' as const }), // an op line whose body_sha256 appears twice
);
type Line = fc.Arbitrary<typeof lineArb extends fc.Arbitrary<infer T> ? T : never>;

function lineText(l: Line extends fc.Arbitrary<infer T> ? T : never): string {
  switch (l.kind) {
    case 'op': {
      const op = {
        type: 'op',
        id: l.id,
        time,
        profile: null,
        source: 'env',
        mode: 'test',
        base_url: 'http://127.0.0.1:9/api/v1',
        key_id: 'K',
        method: l.method,
        path: l.path,
        query: '',
        idempotency_key: `k-${l.id}`,
        body_b64: 'e30=',
        body_sha256: l.sha,
      };
      const json = JSON.stringify(op);
      return encodeJson(l.escaped ? json.replace('/recharge', '\\/recharge') : json);
    }
    case 'outcome':
      return encodeJson(
        JSON.stringify({
          type: 'outcome',
          id: l.id,
          time,
          status: 200,
          outcome: 'resolved',
          code: null,
          resource_id: 'C1',
        }),
      );
    case 'resolution':
      return encodeJson(JSON.stringify({ type: 'resolution', id: l.id, time, outcome: 'succeeded', note: null }));
    case 'damaged':
      return `00000000 {"type":"op","id":"op_9"}\n`;
    case 'repeated':
      return encodeJson(
        `{"type":"op","id":"op_6","time":"${time}","profile":null,"source":"env","mode":"test","base_url":"b","key_id":"K","method":"POST","path":"/cards/C1/recharge","query":"","idempotency_key":"k6","body_b64":"e30=","body_sha256":"${SHAS[3]}","body_sha256":"${SHAS[0]}"}`,
      );
  }
}

/** The check's candidates: the request texts of C1 recharged with the first body. */
function candidates(): { digests: RowDigests; bodies: BodyPrefixes; texts: string[] } {
  const texts = [requestText('POST', '/cards/C1/recharge', SHAS[0]!)];
  const digests = new RowDigests('repeat', texts.length);
  const bodies = new BodyPrefixes();
  texts.forEach((t, i) => {
    digests.add(t, i + 1);
    bodies.add(t.slice(t.lastIndexOf('\n') + 1));
  });
  return { digests, bodies, texts };
}

describe('the repeat check reads only the lines that can matter', () => {
  it('keeps every send whose request is a candidate and every record of its id; reads the same piece by piece', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        (drawn, cut, chunk) => {
          const seen = new Set<string>();
          const lines = drawn.filter((l) => l.kind !== 'op' || (!seen.has(l.id) && seen.add(l.id)));
          let text = lines.map(lineText).join('');
          if (cut && text.length > 0) text = text.slice(0, -1); // the last line without its newline
          const file = join(root, `seg-${n++}.ndjson`);
          writeFileSync(file, text);
          const { digests, bodies } = candidates();
          const all = new JournalStore(root).segmentRecords(file).filter((r): r is RawRecord => !isDamaged(r));
          const kept = new JournalStore(root)
            .segmentRecords(file, mayRepeat(digests, bodies))
            .filter((r): r is RawRecord => !isDamaged(r));
          // the sends the check can match, and every record of their ids: all kept
          const matching = new Set(
            all.filter((r) => r.type === 'op' && digests.firstRowOf(entryRequest(r as never)) !== 0).map((r) => r.id),
          );
          const needed = all.filter((r) => matching.has(r.id)).map((r) => JSON.stringify(r));
          const keptText = new Set(kept.map((r) => JSON.stringify(r)));
          for (const r of needed) expect(keptText.has(r)).toBe(true);
          // read piece by piece with a tiny buffer: the same lines as the whole text
          const whole = decodeText(text, mayRepeat(digests, bodies));
          const pieces = decodeChunks(
            (into, at) =>
              Buffer.from(text, 'utf8').copy(into, 0, at, Math.min(at + into.length, Buffer.byteLength(text))),
            mayRepeat(digests, bodies),
            chunk,
          );
          expect(pieces).toEqual(whole);
        },
      ),
      { numRuns: 400, seed: 31 },
    );
  });

  it('leaves out a send of another request and its outcome', () => {
    const file = join(root, 'other.ndjson');
    const other = {
      kind: 'op' as const,
      id: 'op_2' as const,
      method: 'POST',
      path: PATHS[1]!,
      sha: SHAS[1]!,
      escaped: false,
    };
    writeFileSync(file, lineText(other) + lineText({ kind: 'outcome', id: 'op_2' }));
    const { digests, bodies } = candidates();
    expect(new JournalStore(root).segmentRecords(file, mayRepeat(digests, bodies))).toEqual([]);
    expect(new JournalStore(root).segmentRecords(file)).toHaveLength(2);
  });
});
