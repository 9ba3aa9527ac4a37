// What `sign`, `webhooks sign` and `webhooks verify` do once their flags are parsed (the
// commands call these; the start-up fast path runs those commands like every other).
import { usageError } from '../errors.js';
import { exitCodeFor } from './exit-codes.js';
import type { Io } from '../io.js';

export type ParsedFlags = Record<string, string | boolean | undefined>;
export type LocalCommand = (flags: ParsedFlags, io: Io) => Promise<void>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const printJson = (io: Io, value: unknown): void => void io.stdout.write(JSON.stringify(value, null, 2) + '\n');
const note = (io: Io, message: string): void => void io.stderr.write(message + '\n');

function parseTolerance(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value))
    throw usageError(`--tolerance must be a whole number of seconds, not "${value}".`, 'For example --tolerance 300.');
  return Number(value);
}

export const sign: LocalCommand = async (flags, io) => {
  const { runSign, formatSign } = await import('./signing-tools.js');
  const result = await runSign({
    method: str(flags.method)!,
    path: str(flags.path)!,
    query: str(flags.query),
    data: str(flags.data),
    keyId: str(flags['key-id']),
    timestamp: str(flags.timestamp),
    nonce: str(flags.nonce),
    idempotencyKey: str(flags['idempotency-key']),
    profile: str(flags.profile),
  });
  for (const n of result.notes) note(io, n);
  if (flags.json) {
    const { notes: _notes, ...json } = result;
    printJson(io, json);
  } else {
    io.stdout.write(formatSign(result));
  }
};

export const webhooksVerify: LocalCommand = async (flags, io) => {
  const { runWebhookVerify, webhookVerifyError, parseUnixSeconds } = await import('./signing-tools.js');
  const r = await runWebhookVerify({
    header: str(flags.header)!,
    payload: str(flags.payload)!,
    tolerance: parseTolerance(str(flags.tolerance)),
    now: parseUnixSeconds(str(flags.now), '--now'),
    profile: str(flags.profile),
  });
  if (r.valid) {
    if (flags.json)
      printJson(io, {
        valid: true,
        reason: r.reason,
        timestamp: r.timestamp,
        age_seconds: r.now - (r.timestamp ?? r.now),
      });
    else
      io.stdout.write(
        `valid: the signature matches (t=${r.timestamp}, ${r.now - (r.timestamp ?? r.now)} s before now).\n`,
      );
    return;
  }
  const err = webhookVerifyError(r);
  if (!flags.json) throw err;
  // --json: the verdict is the output, on stdout, with what the text says (the diagnosis of a
  // re-serialized payload included); the exit code still says invalid
  printJson(io, {
    valid: false,
    reason: r.reason,
    message: err.message,
    hint: err.hint ?? null,
    reserialized_as: r.reserializedAs ?? null,
  });
  process.exitCode = exitCodeFor(err);
};

export const webhooksSign: LocalCommand = async (flags, io) => {
  const { runWebhookSign, parseUnixSeconds } = await import('./signing-tools.js');
  const r = await runWebhookSign({
    payload: str(flags.payload)!,
    timestamp: parseUnixSeconds(str(flags.timestamp), '--timestamp'),
    profile: str(flags.profile),
  });
  for (const n of r.notes) note(io, n);
  if (flags.json) printJson(io, { header: r.header, timestamp: r.timestamp, headers: r.headers });
  else io.stdout.write(r.header + '\n');
};
