// What `webhooks listen` is asked to do: its flags, checked before anything listens, and the
// endpoint secret it verifies with (never printed: only where it came from is).
import { CardctlError, usageError } from '../../errors.js';
import { isLoopbackHost } from '../../mock/endpoint-url.js'; // the one loopback rule (the mock and webhooks test use it too)

export interface ListenOptions {
  port: number;
  host: string;
  forwardTo?: string;
  /** register the listener as a webhook endpoint of the running mock */
  mock: boolean;
  controlUrl?: string;
  /** stop after this many deliveries */
  maxEvents?: number;
  json: boolean;
  profile?: string;
  tolerance: number;
}

/** What the listener is given: stderr for its banner and hints (what it prints on stdout is its result, src/output/stream.ts). */
export interface ListenIO {
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** injected for tests; the real clock otherwise (Unix ms) */
  now?: () => number;
}

/** Checks the flags; the --forward-to target, when given. */
export function checkOptions(opts: ListenOptions): URL | undefined {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535)
    throw usageError(`--port must be 0 to 65535, not ${opts.port}.`, '0 picks a free port.');
  if (!isLoopbackHost(opts.host)) {
    throw usageError(
      `--host ${opts.host} is not a loopback address: the listener only binds to loopback.`,
      'Use 127.0.0.1, ::1 or localhost.',
    );
  }
  if (opts.maxEvents !== undefined && (!Number.isInteger(opts.maxEvents) || opts.maxEvents < 1))
    throw usageError('--max-events must be a whole number, at least 1.');
  if (!Number.isInteger(opts.tolerance) || opts.tolerance < 0)
    throw usageError('--tolerance must be a whole number of seconds.', 'For example --tolerance 300.');
  if (opts.forwardTo === undefined) return undefined;
  let target: URL;
  try {
    target = new URL(opts.forwardTo);
  } catch {
    throw usageError(
      `--forward-to ${opts.forwardTo} is not an absolute URL.`,
      'For example --forward-to http://localhost:3000/webhooks.',
    );
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw usageError(`--forward-to must be an http or https URL, not ${target.protocol}.`);
  if (target.username || target.password) throw usageError('--forward-to must not carry a user name or password.');
  return target;
}

/** Refuses a --forward-to that points back at the port the listener got (known once it listens). */
export function checkNotForwardingToItself(
  target: URL | undefined,
  listeningPort: number,
  forwardTo: string | undefined,
): void {
  if (!target || !isLoopbackHost(target.hostname)) return;
  const targetPort = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  if (targetPort === listeningPort)
    throw usageError(
      `--forward-to ${forwardTo} points at this listener itself.`,
      'Forward to your application, on another port.',
    );
}

export interface SecretInfo {
  secret: string;
  /** for people: "CARDCTL_WEBHOOK_SECRET" or "profile NAME" (never the secret) */
  from: string;
}

export async function loadSecret(opts: ListenOptions, env: NodeJS.ProcessEnv): Promise<SecretInfo> {
  const { resolveWebhookSecret } = await import('../../profiles/resolve.js');
  try {
    const r = await resolveWebhookSecret({ profile: opts.profile, env });
    return { secret: r.secret, from: r.source === 'env' ? 'CARDCTL_WEBHOOK_SECRET' : `profile ${r.profile}` };
  } catch (err) {
    // The control plane does not hand out the mock's webhook secret (GET /_mock/webhook-endpoints
    // and the mock's record carry none), so with --mock say where it is.
    if (opts.mock && err instanceof CardctlError && err.code === 'no_webhook_secret') {
      throw new CardctlError(
        `${err.message.replace(/\.$/, '')}: the listener needs the mock's webhook secret to verify its deliveries.`,
        {
          kind: 'usage',
          code: 'no_webhook_secret',
          hint:
            'Start the mock with `cardctl mock start --save-profiles` and pass --profile mock-test (it holds the webhook secret), ' +
            'or set CARDCTL_WEBHOOK_SECRET to the webhook_secret of its `--json` banner.',
        },
      );
    }
    throw err;
  }
}
