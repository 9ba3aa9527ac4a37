// Machine output: `--json` prints exactly one JSON value; `--ndjson` one value per line.

export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export function writeJson(value: unknown, out: NodeJS.WritableStream = process.stdout): void {
  out.write(jsonText(value));
}

/** One compact line; waits for the stream to drain so `--all` streams in constant memory. */
export async function writeNdjson(value: unknown, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  if (!out.write(JSON.stringify(value) + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
}
