// What `sign`, `webhooks sign` and `webhooks verify` do once their flags are parsed (the
// commands call these and return their result; the start-up fast path runs those commands like
// every other). Nothing here prints the output: src/output/render.ts does.
import { usageError } from '../errors.js';
import { exitCodeFor } from './exit-codes.js';
import { outcome, result, type Result } from '../output/render.js';

export type ParsedFlags = Record<string, string | boolean | undefined>;
/** `note`: a line for stderr, said while the work is done (before the output) */
export type LocalCommand = (flags: ParsedFlags, note: (line: string) => void) => Promise<Result>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function parseTolerance(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value))
    throw usageError(`--tolerance must be a whole number of seconds, not "${value}".`, 'For example --tolerance 300.');
  return Number(value);
}

export const sign: LocalCommand = async (flags, note) => {
  const { runSign, formatSign } = await import('./signing-tools.js');
  const signed = await runSign({
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
  for (const n of signed.notes) note(n);
  const { notes: _notes, ...json } = signed;
  return result(json, () => formatSign(signed));
};

export const webhooksVerify: LocalCommand = async (flags) => {
  const { runWebhookVerify, webhookVerifyError, parseUnixSeconds } = await import('./signing-tools.js');
  const r = await runWebhookVerify({
    header: str(flags.header)!,
    payload: str(flags.payload)!,
    tolerance: parseTolerance(str(flags.tolerance)),
    now: parseUnixSeconds(str(flags.now), '--now'),
    profile: str(flags.profile),
  });
  if (r.valid) {
    const age = r.now - (r.timestamp ?? r.now);
    return result(
      { valid: true, reason: r.reason, timestamp: r.timestamp, age_seconds: age },
      () => `valid: the signature matches (t=${r.timestamp}, ${age} s before now).\n`,
    );
  }
  const err = webhookVerifyError(r);
  if (!flags.json) throw err;
  // --json: the verdict is the output, on stdout, with what the text says (the diagnosis of a
  // re-serialized payload included); the exit code still says invalid
  return outcome(
    result({
      valid: false,
      reason: r.reason,
      message: err.message,
      hint: err.hint ?? null,
      reserialized_as: r.reserializedAs ?? null,
    }),
    { exitCode: exitCodeFor(err) },
  );
};

export const webhooksSign: LocalCommand = async (flags, note) => {
  const { runWebhookSign, parseUnixSeconds } = await import('./signing-tools.js');
  const r = await runWebhookSign({
    payload: str(flags.payload)!,
    timestamp: parseUnixSeconds(str(flags.timestamp), '--timestamp'),
    profile: str(flags.profile),
  });
  for (const n of r.notes) note(n);
  return result({ header: r.header, timestamp: r.timestamp, headers: r.headers }, () => r.header + '\n');
};
