// Finds a running mock's control plane and calls it, for the `cardctl mock <control>` commands.
// Where: --control-url, else -p's profile, else CARDCTL_MOCK_URL, else (webhooks listen --mock and
// webhooks trigger only) CARDCTL_PROFILE's profile; the token from CARDCTL_MOCK_TOKEN; else both
// from the record `cardctl mock start` writes into the config folder (registry.ts): the record of
// that URL (a profile with no running mock at its address is an error), else the newest running
// mock, said on stderr when more than one runs.
import { CardctlError, type ErrorKind } from '../../errors.js';
import type { Mode } from '../../profiles/types.js';
import { describeMock, mocksDir, runningMocks } from './registry.js';

export interface ControlTarget {
  url: string;
  token: string;
  /** the profile that chose this mock (-p, or CARDCTL_PROFILE where the command takes it), if one did */
  profile?: { name: string; mode: Mode };
}

const trimmed = (u: string): string => u.replace(/\/+$/, '');

/**
 * `-p NAME` on a mock command: a profile saved by `mock start --save-profiles` holds the mock's
 * base URL, and the control plane is `/_mock` on the same address. Its token comes from the record
 * of that running mock (or CARDCTL_MOCK_TOKEN).
 */
export function controlUrlOfProfile(profile: { baseUrl: string }): string {
  return `${new URL(profile.baseUrl).origin}/_mock`;
}

export interface ControlChoice {
  controlUrl?: string;
  controlToken?: string;
  /** -p NAME */
  profile?: string;
  /**
   * Also CARDCTL_PROFILE, after CARDCTL_MOCK_URL (`webhooks listen --mock` and `webhooks trigger`,
   * which use that profile's webhook secret or mode); the `mock` commands take only -p.
   */
  envProfile?: boolean;
}

/** The profile that picks the mock, by the order --control-url, -p, CARDCTL_MOCK_URL, CARDCTL_PROFILE (when taken). */
async function choosingProfile(
  flags: ControlChoice,
  env: NodeJS.ProcessEnv,
): Promise<{ name: string; mode: Mode; baseUrl: string; from: 'flag' | 'env' } | undefined> {
  if (flags.controlUrl !== undefined) return undefined;
  const byFlag = flags.profile !== undefined && flags.profile !== '';
  if (!byFlag && (!flags.envProfile || env.CARDCTL_MOCK_URL || !env.CARDCTL_PROFILE)) return undefined;
  const { namedProfile } = await import('../../profiles/resolve.js');
  const p = await namedProfile({ profile: byFlag ? flags.profile : undefined, env });
  return p && { name: p.name, mode: p.mode, baseUrl: p.baseUrl, from: byFlag ? 'flag' : 'env' };
}

export async function resolveControl(
  flags: ControlChoice,
  env: NodeJS.ProcessEnv = process.env,
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<ControlTarget> {
  const chosen = await choosingProfile(flags, env);
  const fromProfile = chosen ? controlUrlOfProfile(chosen) : undefined;
  let url = flags.controlUrl ?? fromProfile ?? env.CARDCTL_MOCK_URL;
  let token = flags.controlToken ?? env.CARDCTL_MOCK_TOKEN;
  if (
    chosen &&
    !token &&
    !runningMocks(await mocksDir(env)).some((m) => trimmed(m.control_url) === trimmed(fromProfile!))
  ) {
    const named =
      chosen.from === 'flag' ? `profile ${chosen.name}` : `CARDCTL_PROFILE names profile ${chosen.name}, which`;
    throw new CardctlError(
      `${named} points at ${fromProfile!.replace(/\/_mock$/, '')}, but no running mock started with \`cardctl mock start\` there is recorded.`,
      {
        kind: 'unavailable',
        code: 'no_mock_for_profile',
        hint:
          (chosen.from === 'env'
            ? 'Unset CARDCTL_PROFILE, or point it at a profile of a running mock (mock-test, mock-live). '
            : '') +
          'The mock commands find a mock by -p (a profile saved by `mock start --save-profiles`, with that mock still running), --control-url with CARDCTL_MOCK_TOKEN, ' +
          'CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN, or else the newest running mock. Start one: `cardctl mock start --save-profiles`.',
      },
    );
  }
  if (!url || !token) {
    const mocks = runningMocks(await mocksDir(env));
    const chosen = (url ? mocks.find((m) => trimmed(m.control_url) === trimmed(url!)) : undefined) ?? mocks[0];
    if (chosen) {
      if (!url && mocks.length > 1) {
        stderr.write(
          `note: ${mocks.length} mocks are running; using the newest (${describeMock(chosen)}). ` +
            'Set CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN (or pass --control-url) to use another.\n',
        );
      }
      url ??= chosen.control_url;
      token ??= chosen.control_token;
    }
  }
  if (!url || !token) {
    throw new CardctlError('no running mock found.', {
      kind: 'unavailable',
      hint: 'Start one with `cardctl mock start`, or set CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN (the control_url and control_token of its --json banner).',
    });
  }
  if (!/^https?:\/\/[^\s]+$/i.test(url) || !URL.canParse(url)) {
    // not quoted unless typed on this command line: CARDCTL_MOCK_URL may hold the token by mistake
    const from =
      flags.controlUrl !== undefined
        ? `--control-url ${JSON.stringify(url)}`
        : env.CARDCTL_MOCK_URL
          ? 'CARDCTL_MOCK_URL'
          : 'the record of `mock start`';
    throw new CardctlError(`${from} is not an http(s) URL.`, {
      kind: 'usage',
      hint: "Use the control_url of the mock's --json banner, e.g. http://127.0.0.1:4010/_mock.",
    });
  }
  return {
    url: url.replace(/\/+$/, ''),
    token,
    ...(chosen ? { profile: { name: chosen.name, mode: chosen.mode } } : {}),
  };
}

function kindFor(status: number, message: string): ErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 422 && message === 'Validation failed.') return 'usage';
  if (status === 409 || status === 422) return 'business';
  if (status === 503) return 'unavailable';
  return 'unexpected';
}

/** One control call; returns `data`, or throws a CardctlError with the mock's message and errors. */
export async function callControl(
  target: ControlTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  return (await callControlPage(target, method, path, body)).data;
}

/** The placeholder `--dry-run` shows for the control token (never the token). */
export const CONTROL_TOKEN_PLACEHOLDER = 'Bearer <control token: added at send time, never shown>';

/** A control call's URL, headers and body; `token`: the control token, or undefined for `--dry-run`'s placeholder. */
export function controlRequest(
  target: Pick<ControlTarget, 'url'>,
  path: string,
  body: unknown,
  token: string | undefined,
): { url: string; headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = {
    Authorization: token === undefined ? CONTROL_TOKEN_PLACEHOLDER : `Bearer ${token}`,
    Accept: 'application/json',
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return { url: target.url + path, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** A control call's `data` and its `meta` (a list page's cursor, the request log's `dropped`). */
export async function callControlPage(
  target: ControlTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ data: unknown; meta: Record<string, unknown> }> {
  const request = controlRequest(target, path, body, target.token);
  let res: Response;
  try {
    res = await fetch(request.url, {
      method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(15_000),
    });
  } catch {
    throw new CardctlError(`the mock at ${target.url} does not answer.`, {
      kind: 'unavailable',
      hint: 'Is it still running? Start one with `cardctl mock start`, or point --control-url at a running one.',
    });
  }
  const text = await res.text();
  let parsed: {
    success?: boolean;
    data?: unknown;
    meta?: Record<string, unknown>;
    message?: string;
    errors?: Record<string, unknown>;
  } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // reported below as an unexpected answer
  }
  if (res.ok && parsed.success === true)
    return { data: parsed.data, meta: parsed.meta && typeof parsed.meta === 'object' ? parsed.meta : {} };
  const message = parsed.message ?? `unexpected answer (HTTP ${res.status}) from ${target.url}`;
  throw new CardctlError(message.replace(/\.$/, '') + '.', {
    kind: kindFor(res.status, message),
    status: res.status,
    errors: parsed.errors ?? {},
    hint:
      res.status === 401
        ? 'The control token does not match this mock: use the control_token of its banner (or let the record of `cardctl mock start` provide it).'
        : undefined,
  });
}
