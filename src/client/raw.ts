// `cardctl request`: one signed request to any path, like `gh api`.
import { CardctlError, usageError } from '../errors.js';
import { readInputFile, readInputStream } from './bounded-read.js';
import type { ApiResponse } from './client.js';
import { inexactNumbers, serializeMoneyBody } from './serialize.js';
import { withSession, type SessionOptions } from './session.js';

export interface RawRequestOptions extends SessionOptions {
  method: string;
  path: string;
  /** `--data`: inline JSON, `@FILE`, or `-` for stdin */
  data?: string;
  /** `--query k=v`, repeatable */
  query?: string[];
  idempotencyKey?: string;
  readStdin?: () => Promise<Buffer>;
}

/** The body bytes, whether they may be re-serialized (inline only), and the parsed value. */
export async function readData(
  data: string | undefined,
  readStdin?: () => Promise<Buffer>,
): Promise<{ bytes: Buffer; inline: boolean; value: unknown } | undefined> {
  if (data === undefined) return undefined;
  let bytes: Buffer;
  let inline = false;
  let source: string;
  if (data === '-') {
    bytes = await (readStdin ?? (() => readInputStream(process.stdin, '--data')))();
    source = 'stdin';
  } else if (data.startsWith('@')) {
    const file = data.slice(1);
    try {
      bytes = readInputFile(file, '--data');
    } catch (err) {
      if (err instanceof CardctlError) throw err;
      throw usageError(
        `cannot read --data file "${file}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
        'Check the path after @.',
      );
    }
    source = `file ${file}`;
  } else {
    bytes = Buffer.from(data, 'utf8');
    inline = true;
    source = '--data';
  }
  if (bytes.length === 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw usageError(
      `the body from ${source} is not valid JSON: ${(err as Error).message}.`,
      `The API takes JSON bodies, e.g. --data '{"amount":100}', --data @body.json or --data - (stdin).`,
    );
  }
  return { bytes, inline, value };
}

/** Sends the request; resolves with a 2xx answer, throws an ApiError (with the answer when there was one). */
export async function runRawRequest(opts: RawRequestOptions): Promise<ApiResponse> {
  const body = await readData(opts.data, opts.readStdin);
  const query: Array<[string, string]> = (opts.query ?? []).map((pair) => {
    const eq = pair.indexOf('=');
    return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
  });
  return withSession(opts, async ({ client }) => {
    const prepared = await client.prepare({
      method: opts.method,
      path: opts.path,
      query,
      body: body?.bytes,
      idempotencyKey: opts.idempotencyKey,
    });
    // Typed inline on a money route: deterministic bytes, so retyping the command replays.
    // A file or stdin is sent byte for byte.
    if (body?.inline && prepared.money) {
      const [bad] = inexactNumbers(body.bytes.toString('utf8'));
      if (bad) {
        throw usageError(
          `the number ${bad.literal} in --data cannot be carried exactly: it would be sent as ${bad.becomes}, so nothing was sent.`,
          'Check the amount (amounts are integers in minor units), or send the exact bytes unchanged with --data @FILE.',
        );
      }
      prepared.body = await serializeMoneyBody(prepared.route?.operation, body.value);
    }
    return client.sendPrepared(prepared);
  });
}
