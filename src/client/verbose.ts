// `--verbose` output (PRODUCT.md, "Debugging signatures"): what was signed and sent, what
// came back, and why a retry happened. Written to stderr; the secret is never an input here.
import { describeCanonical, visible } from '../signing/visible.js';
import { terminalSafe } from '../terminal-text.js';

/** The canonical string, one numbered field per line, each value between `|` marks. */
export function formatCanonical(canonical: string): string[] {
  return describeCanonical(canonical, { marks: true });
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

/** The log written to the command's stderr, every line escaped once more on its way out: an error message can quote a server (a TLS certificate's names). */
export function verboseLog(stderr: NodeJS.WritableStream): VerboseLog {
  return (line) => void stderr.write(terminalSafe(line) + '\n');
}
