// Finds a running mock's control plane and calls it, for the `cardctl mock <control>` commands.
// Where: --control-url, else CARDCTL_MOCK_URL; the token from CARDCTL_MOCK_TOKEN; else both from the
// mock.json that `cardctl mock start` writes into the config folder.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CardctlError, type ErrorKind } from '../../errors.js';

export const MOCK_FILE_NAME = 'mock.json';

export interface ControlTarget {
  url: string;
  token: string;
}

/** The config folder, as the profile store computes it (loaded lazily: it is only needed here). */
export async function mockFilePath(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { configDir } = await import('../../profiles/store.js');
  return join(configDir(env), MOCK_FILE_NAME);
}

export async function resolveControl(flags: { controlUrl?: string; controlToken?: string }, env: NodeJS.ProcessEnv = process.env): Promise<ControlTarget> {
  let url = flags.controlUrl ?? env.CARDCTL_MOCK_URL;
  let token = flags.controlToken ?? env.CARDCTL_MOCK_TOKEN;
  if (!url || !token) {
    const file = await mockFilePath(env);
    try {
      const saved = JSON.parse(await readFile(file, 'utf8')) as { control_url?: string; control_token?: string };
      url ??= saved.control_url;
      token ??= saved.control_token;
    } catch {
      // no running mock recorded: the message below says what to do
    }
  }
  if (!url || !token) {
    throw new CardctlError('no running mock found.', {
      kind: 'unavailable',
      hint: 'Start one with `cardctl mock start`, or set CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN (the control_url and control_token of its --json banner).',
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
    hint: res.status === 401 ? 'The control token does not match this mock: use the control_token of its banner (or let `cardctl mock start` write mock.json).' : undefined,
  });
}
