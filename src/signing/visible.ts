// Showing canonical fields to a person: invisible characters are exactly what breaks
// signatures, so they are made visible. Used by `--verbose`, `sign` and `sign diagnose`.

export const CANONICAL_FIELD_NAMES = [
  'METHOD',
  'PATH',
  'QUERY_STRING',
  'X-Api-Key',
  'X-Timestamp',
  'X-Nonce',
  'BODY_SHA256',
] as const;

/** `\n`, `\t`, `\r`, control, odd-space, zero-width, bidi and BOM characters escaped; edge spaces as `␠`. */
export function visible(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\\') out += '\\\\';
    else if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (/[\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/u.test(ch))
      out += `\\u{${cp.toString(16).toUpperCase()}}`;
    else out += ch;
  }
  // leading and trailing spaces are invisible at the end of a line
  return out.replace(/^ +| +$/g, (m) => '␠'.repeat(m.length));
}

/**
 * The canonical fields one per line, numbered and named. `marks` puts each value between `|`
 * (so an empty field shows as `||`); without, an empty field reads `(empty)`.
 */
export function describeCanonical(canonical: string, options: { indent?: string; marks?: boolean } = {}): string[] {
  const indent = options.indent ?? '  ';
  return canonical.split('\n').map((f, i) => {
    const value = options.marks ? `|${visible(f)}|` : f === '' ? '(empty)' : visible(f);
    return `${indent}${String(i + 1)} ${(CANONICAL_FIELD_NAMES[i] ?? 'EXTRA').padEnd(12)} ${value}`;
  });
}
