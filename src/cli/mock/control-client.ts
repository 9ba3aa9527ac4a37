// Finds a running mock's control plane and calls it, for the `cardctl mock <control>` commands.
// Where: --control-url, else CARDCTL_MOCK_URL; the token from CARDCTL_MOCK_TOKEN; else both from the
// record `cardctl mock start` writes into the config folder (registry.ts): the record of that URL,
// else the newest running mock, said on stderr when more than one runs.
import { CardctlError, type ErrorKind } from '../../errors.js';
import { describeMock, mocksDir, runningMocks } from './registry.js';

export interface ControlTarget {
  url: string;
  token: string;
}

const trimmed = (u: string): string => u.replace(/\/+$/, '');

/**
 * `-p NAME` on a mock command: a profile saved by `mock start --save-profiles` holds the mock's
 * base URL, and the control plane is `/_mock` on the same address. Its token comes from the record
 * of that running mock (or CARDCTL_MOCK_TOKEN).
 */
export async function controlUrlOfProfile(name: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { requireProfile } = await import('../../profiles/store.js');
  const profile = await requireProfile(name, env);
  return `${new URL(profile.baseUrl).origin}/_mock`;
}

export async function resolveControl(
  flags: { controlUrl?: string; controlToken?: string; profile?: string },
  env: NodeJS.ProcessEnv = process.env,
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<ControlTarget> {
  const fromProfile = flags.controlUrl === undefined && flags.profile !== undefined ? await controlUrlOfProfile(flags.profile, env) : undefined;
  let url = flags.controlUrl ?? fromProfile ?? env.CARDCTL_MOCK_URL;
  let token = flags.controlToken ?? env.CARDCTL_MOCK_TOKEN;
  if (fromProfile && !token && !runningMocks(await mocksDir(env)).some((m) => trimmed(m.control_url) === trimmed(fromProfile))) {
    throw new CardctlError(`profile ${flags.profile} points at ${fromProfile.replace(/\/_mock$/, '')}, but no running mock started with \`cardctl mock start\` there is recorded.`, {
      kind: 'unavailable',
      hint:
        'The mock commands find a mock by -p (a profile saved by `mock start --save-profiles`, with that mock still running), --control-url with CARDCTL_MOCK_TOKEN, ' +
        'CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN, or else the newest running mock. Start one: `cardctl mock start --save-profiles`.',
    });
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
    const from = flags.controlUrl !== undefined ? `--control-url ${JSON.stringify(url)}` : env.CARDCTL_MOCK_URL ? 'CARDCTL_MOCK_URL' : 'the record of `mock start`';
    throw new CardctlError(`${from} is not an http(s) URL.`, {
      kind: 'usage',
      hint: 'Use the control_url of the mock\'s --json banner, e.g. http://127.0.0.1:4010/_mock.',
    });
  }
  return { url: url.replace(/\/+$/, ''), token };
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
export async function callControl(target: ControlTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { Authorization: `Bearer ${target.token}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(target.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
  } catch {
    throw new CardctlError(`the mock at ${target.url} does not answer.`, {
      kind: 'unavailable',
      hint: 'Is it still running? Start one with `cardctl mock start`, or point --control-url at a running one.',
    });
  }
  const text = await res.text();
  let parsed: { success?: boolean; data?: unknown; message?: string; errors?: Record<string, unknown> } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // reported below as an unexpected answer
  }
  if (res.ok && parsed.success === true) return parsed.data;
  const message = parsed.message ?? `unexpected answer (HTTP ${res.status}) from ${target.url}`;
  throw new CardctlError(message.replace(/\.$/, '') + '.', {
    kind: kindFor(res.status, message),
    status: res.status,
    errors: parsed.errors ?? {},
    hint: res.status === 401 ? 'The control token does not match this mock: use the control_token of its banner (or let the record of `cardctl mock start` provide it).' : undefined,
  });
}
