// Machine output: `--json` prints exactly one JSON value; `--ndjson` one value per line.

export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export function writeJson(value: unknown, out: NodeJS.WritableStream): void {
  out.write(jsonText(value));
}

/**
 * The one JSON shape of every list command (docs/output.md): the API's `{data, meta}` envelope.
 * `meta` is the last page's (with --all: no cursor left to follow); a list that comes in one piece
 * (the mock's control lists, the journal, the profiles) says it has no more.
 */
export function listDocument(
  data: unknown[],
  meta?: Record<string, unknown>,
): { data: unknown[]; meta: Record<string, unknown> } {
  return { data, meta: { has_more: false, next_cursor: null, ...meta } };
}

/** One compact line; waits for the stream to drain so `--all` streams in constant memory. */
export async function writeNdjson(value: unknown, out: NodeJS.WritableStream): Promise<void> {
  if (!out.write(JSON.stringify(value) + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
}
