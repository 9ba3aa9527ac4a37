// The CRC-32 kept beside each record of the journal (zlib's: gzip's and PNG's polynomial), which a
// read checks. A single command writes and reads a handful of records: they are summed here, so
// that the command does not load node:zlib (1.6 ms of a money command, measured with a CPU
// profile); from the 65th record of a process on (a batch, a rerun, a copy) zlib's own, faster at
// volume. The same number either way (test/client/checksum.test.ts).

/** The first records of a process summed here; the rest by node:zlib. */
export const SUMMED_HERE = 64;

const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** The CRC-32 of `text`'s UTF-8 bytes, computed in JavaScript. */
export function crc32Here(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

let summed = 0;
let zlibs: ((text: string) => number) | undefined;

/** The CRC-32 of `text`'s UTF-8 bytes, as node:zlib's crc32 gives it. */
export function crc32(text: string): number {
  if (zlibs) return zlibs(text);
  if (++summed <= SUMMED_HERE) return crc32Here(text);
  zlibs = process.getBuiltinModule('node:zlib').crc32;
  return zlibs(text);
}
