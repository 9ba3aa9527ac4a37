// The journal's record checksum (src/client/journal-db/checksum.ts): summed in JavaScript for a
// process's first records, by node:zlib after; both must give zlib's number, or a record written by
// one would read as damaged by the other (a batch writes past the switch, a single command reads).
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Here, SUMMED_HERE } from '../../src/client/journal-db/checksum.js';

const texts = [
  '',
  'a',
  '{"type":"op","id":"01JD2Q9ZZZZZZZZZZZZZZZZZZZ","idempotency_key":"order-7","body_b64":"eyJhbW91bnQiOjEwMH0="}',
  'accents é à ü, CJK 漢字, an emoji 🧾, a NUL \u0000 and a line\nbreak',
  'x'.repeat(70_000),
  JSON.stringify({ note: '\ud83d\ude00'.repeat(500) }),
];

describe("the journal's record checksum", () => {
  it("is zlib's CRC-32 for every text, summed here or by zlib, across the switch from one to the other", () => {
    for (const t of texts) expect(crc32Here(t)).toBe(zlibCrc32(t));
    for (let i = 0; i < SUMMED_HERE + 10; i++) {
      const t = `${texts[i % texts.length]}#${i}`;
      expect(crc32(t)).toBe(zlibCrc32(t));
    }
  });
});
