// `--verbose` output (PRODUCT.md, "Debugging signatures"): what was signed and sent, what
// came back, and why a retry happened. Written to stderr; the secret is never an input here.

/** Makes invisible characters visible: `\n`, `\t`, `\r`, control and zero-width characters, trailing spaces. */
export function visible(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0').toUpperCase()}`;
    else if (cp === 0xa0 || (cp >= 0x2000 && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202f) || cp === 0x2060 || cp === 0xfeff || cp === 0x85)
      out += `\\u${cp.toString(16).padStart(4, '0').toUpperCase()}`;
    else out += ch;
  }
  const trailing = /( +)$/.exec(out);
  if (trailing) out = out.slice(0, -trailing[1]!.length) + '␠'.repeat(trailing[1]!.length);
  return out;
}

const FIELD_NAMES = ['METHOD', 'PATH', 'QUERY_STRING', 'X-Api-Key', 'X-Timestamp', 'X-Nonce', 'BODY_SHA256'];

/** The canonical string, one numbered field per line, each value between `|` marks. */
export function formatCanonical(canonical: string): string[] {
  const fields = canonical.split('\n');
  return fields.map((v, i) => `  ${i + 1} ${(FIELD_NAMES[i] ?? '?').padEnd(12)} |${visible(v)}|`);
}

export type Headers = Record<string, string | string[] | undefined>;

export function formatHeaders(headers: Headers, prefix: string): string[] {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) lines.push(`${prefix}${k}: ${visible(String(one))}`);
  }
  return lines;
}

export interface VerboseLog {
  (line: string): void;
}

export const stderrLog: VerboseLog = (line) => {
  process.stderr.write(line + '\n');
};
