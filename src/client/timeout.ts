// The per-attempt deadline (docs/network.md, "Deadlines"): one deadline covers connect, proxy,
// TLS, headers and the whole body of each attempt. Where it comes from, first found wins:
// `--timeout SECONDS`, CARDCTL_TIMEOUT (seconds), CARDCTL_TIMEOUT_MS, the profile's `timeout`,
// then the command's default (30 s). A value that is not a number of seconds is a usage error
// (exit 2) naming where it came from, before anything is sent.
import { usageError } from '../errors.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** One day: a longer deadline is a typo, not a wish. */
export const MAX_TIMEOUT_S = 86_400;

const HINT = `Give the seconds each attempt may take, above 0 and at most ${MAX_TIMEOUT_S} (decimals allowed), e.g. --timeout 30 or CARDCTL_TIMEOUT=30.`;

/** Seconds as typed (`30`, `2.5`) -> milliseconds; throws a usage error naming `where` ("--timeout", "CARDCTL_TIMEOUT", ...). */
export function parseTimeoutSeconds(text: string, where: string): number {
  const s = text.trim();
  const n = /^\d+(\.\d+)?$|^\.\d+$/.test(s) ? Number(s) : NaN;
  // a value typed on this command line is quoted back; one from the environment only named (docs/profiles.md)
  const said = (value: string): string => (where.startsWith('--') ? `${where} ${value}` : where);
  if (!Number.isFinite(n)) throw usageError(`${said(JSON.stringify(text))} is not a number of seconds.`, HINT);
  if (n <= 0 || n > MAX_TIMEOUT_S)
    throw usageError(
      `${said(s)} is out of range: the deadline of an attempt is above 0 and at most ${MAX_TIMEOUT_S} seconds.`,
      HINT,
    );
  return Math.max(1, Math.round(n * 1000));
}

const given = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

/**
 * The flag and the environment only (checked before the credentials are looked up, so a bad
 * value is reported first); undefined: the profile or the default decides.
 */
export function timeoutFromFlagOrEnv(flag: string | undefined, env: NodeJS.ProcessEnv): number | undefined {
  if (flag !== undefined) return parseTimeoutSeconds(flag, '--timeout');
  if (given(env.CARDCTL_TIMEOUT)) return parseTimeoutSeconds(env.CARDCTL_TIMEOUT, 'CARDCTL_TIMEOUT');
  if (given(env.CARDCTL_TIMEOUT_MS)) {
    const ms = Number(env.CARDCTL_TIMEOUT_MS);
    if (!Number.isInteger(ms) || ms <= 0 || ms > MAX_TIMEOUT_S * 1000)
      throw usageError(
        `CARDCTL_TIMEOUT_MS is not a whole number of milliseconds above 0.`,
        'Prefer CARDCTL_TIMEOUT in seconds, e.g. CARDCTL_TIMEOUT=30.',
      );
    return ms;
  }
  return undefined;
}

/** The deadline of each attempt: the flag or environment's (timeoutFromFlagOrEnv) > the profile's `timeout` (seconds) > `fallbackMs`. */
export function chooseTimeoutMs(
  flagOrEnvMs: number | undefined,
  profileTimeoutS: number | undefined,
  fallbackMs = DEFAULT_TIMEOUT_MS,
): number {
  return flagOrEnvMs ?? (profileTimeoutS !== undefined ? Math.round(profileTimeoutS * 1000) : fallbackMs);
}
