// The ONE place where an API answer or a transport failure becomes a CardctlError. The
// `kind` decides the exit code (src/cli/exit-codes.ts); the message says what to do next.
import { CardctlError, withHint } from '../errors.js';
import { describeNotApi, namedIntermediary, type NotApiAnswer } from './answer.js';
import type { JournalReport } from './journal-types.js';

export interface AnswerOutcome {
  type: 'answer';
  status: number;
  /** the parsed JSON body, when there was one */
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

export interface TransportOutcome {
  type: 'transport';
  error: unknown;
  /** the request may have reached the server (anything but a failed connect) */
  maybeSent: boolean;
}

/** An answer that is not the API's own (src/client/answer.ts): it tells nothing of what the API did. */
export interface NotApiOutcome {
  type: 'not_api';
  notApi: NotApiAnswer;
  headers: Record<string, string | string[] | undefined>;
  /** what came, for `request --include` and `--verbose` */
  text: string;
}

export type Outcome = AnswerOutcome | TransportOutcome | NotApiOutcome;

export interface ErrorContext {
  method: string;
  url: string;
  money: boolean;
  idempotencyKey?: string;
  /** local clock in ms when the answer arrived, for the clock-skew message */
  localNowMs: number;
  profileName?: string;
  /** where the base URL came from, as the user set it (baseUrlOrigin): named by the unreachable hint */
  baseUrlFrom?: string;
  keyId?: string;
  /** the journal entry of a money operation, named in the replay hint */
  journalId?: string;
  /** the body sent, to name the ids a 404 may be about */
  body?: Buffer | string;
}

const ID_FIELDS: Record<string, string> = { customer_id: 'customer', product_id: 'product', card_id: 'card' };
const PATH_IDS: Record<string, string> = {
  cards: 'card',
  customers: 'customer',
  'deposit-addresses': 'deposit address',
  deposits: 'deposit',
};

/** The ids a request carried, in the path (`/cards/ID`) and in a JSON body (`customer_id`, ...). */
export function idsCarried(url: string, body?: Buffer | string): Array<{ what: string; id: string }> {
  const out: Array<{ what: string; id: string }> = [];
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split('?')[0] ?? url;
  }
  const parts = path.split('/').filter(Boolean);
  for (let i = 0; i + 1 < parts.length; i++) {
    const what = PATH_IDS[parts[i]!];
    if (what && /^[0-9A-Za-z]{26}$/.test(parts[i + 1]!)) out.push({ what, id: parts[i + 1]! });
  }
  if (body !== undefined && body.length > 0 && body.length < 65536) {
    try {
      const parsed = JSON.parse(body.toString()) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [field, what] of Object.entries(ID_FIELDS)) {
          const v = (parsed as Record<string, unknown>)[field];
          if (typeof v === 'string' && /^[0-9A-Za-z]{26}$/.test(v)) out.push({ what, id: v });
        }
      }
    } catch {
      // not JSON: no ids to name
    }
  }
  return out;
}

/** The 404 hint: a wrong path, or which ids the request carried. */
function notFoundHint(message: string | undefined, ctx: ErrorContext): string {
  if (message === 'Endpoint not found.') {
    return 'No such endpoint: the path (or the method) is wrong, not an id. The API paths are listed in the spec, e.g. `/cards/{card}/recharge`; `cardctl request` takes them relative to the base URL.';
  }
  const elsewhere = 'an id of the other mode (test/live) or of another merchant is not found either.';
  const ids = idsCarried(ctx.url, ctx.body);
  if (ids.length === 0) return `Check the id and the path; ${elsewhere}`;
  if (ids.length === 1) return `Check the ${ids[0]!.what} id ${ids[0]!.id}: ${elsewhere}`;
  const list = ids.map((i) => `${i.what} ${i.id}`).join(', ');
  const checks = ids
    .map((i) =>
      i.what === 'customer'
        ? `\`cardctl customers get ${i.id}\``
        : i.what === 'card'
          ? `\`cardctl cards get ${i.id}\``
          : i.what === 'product'
            ? "a product id must be one of your account's products (the mock lists its own: `cardctl mock products`)"
            : undefined,
    )
    .filter(Boolean);
  return `The request carried ${ids.length} ids (${list}); at least one does not exist for this key. Check them: ${checks.join('; ')}. ${elsewhere[0]!.toUpperCase()}${elsewhere.slice(1)}`;
}

/** Transport error codes that mean the request never left this machine. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'PROXY_REFUSED',
  'PROXY_TUNNEL_FAILED',
  'PROXY_URL_INVALID',
]);

/** The proxy a transport failure belongs to (src/client/http.ts names it without credentials). */
function failedProxy(error: unknown): string | undefined {
  const e = error as { proxy?: unknown } | undefined;
  return typeof e?.proxy === 'string' ? e.proxy : undefined;
}

export function transportCode(error: unknown): string | undefined {
  const e = error as { code?: string; cause?: { code?: string } } | undefined;
  return e?.code ?? e?.cause?.code;
}

export function wasMaybeSent(error: unknown): boolean {
  const code = transportCode(error);
  return !(code && NOT_SENT_CODES.has(code));
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function envelopeParts(body: unknown): { message?: string; errors: Record<string, unknown> } {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as { message?: unknown; errors?: unknown };
    const errors =
      b.errors && typeof b.errors === 'object' && !Array.isArray(b.errors) ? (b.errors as Record<string, unknown>) : {};
    return { message: typeof b.message === 'string' ? b.message : undefined, errors };
  }
  return { errors: {} };
}

function firstCode(errors: Record<string, unknown>): string | undefined {
  for (const list of Object.values(errors)) if (Array.isArray(list) && typeof list[0] === 'string') return list[0];
  return undefined;
}

function hasCode(errors: Record<string, unknown>, code: string): boolean {
  return Object.values(errors).some((list) => Array.isArray(list) && list.includes(code));
}

/** Seconds the local clock is ahead of the server's `Date` header (negative: behind). */
export function clockSkewSeconds(dateHeader: string | undefined, localNowMs: number): number | undefined {
  if (!dateHeader) return undefined;
  const server = Date.parse(dateHeader);
  return Number.isNaN(server) ? undefined : Math.round((localNowMs - server) / 1000);
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(
  headers: Record<string, string | string[] | undefined>,
  localNowMs: number,
): number | undefined {
  const v = header(headers, 'retry-after');
  if (v === undefined) return undefined;
  if (/^\s*\d+\s*$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - localNowMs) / 1000));
}

export const replayHint = (key: string | undefined, journalId?: string): string =>
  key
    ? `The outcome is not known yet: replay it to learn it (${journalId ? `\`cardctl ops replay ${journalId}\`, or ` : ''}the same command with \`--idempotency-key ${key}\`); do not send it with a new key.`
    : 'The outcome is not known yet: check the resource before retrying.';

/** Methods that change nothing, so a dropped connection after sending them is harmless. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** null for a success (2xx, and 202 outside money operations). */
export function toCardctlError(outcome: Outcome, ctx: ErrorContext): CardctlError | null {
  if (outcome.type === 'transport') return classifyTransport(outcome, ctx);
  if (outcome.type === 'not_api') return notApiError(outcome, ctx);
  const answer = answerParts(outcome, ctx);
  const rule = STATUS_TABLE.find((r) => r.when(answer));
  const err = rule ? rule.error(answer, ctx) : unexpectedAnswer(answer, ctx);
  return err ? withMockExplanation(err, answer.headers) : err;
}

/**
 * A cardctl mock names each answer's record in its request log, and sends a refusal's diagnosis
 * in one line (docs/mock-requests.md): the hint then says what the mock found and where to read it
 * whole. Another server's answers are left as they are.
 */
function withMockExplanation(err: CardctlError, headers: Record<string, string | string[] | undefined>): CardctlError {
  const id = header(headers, 'x-cardctl-mock-request');
  if (!id || !/^req_\d{1,15}$/.test(id)) return err;
  const said = header(headers, 'x-cardctl-mock-diagnosis');
  const explanation = said
    ? `The mock explains it (${said.slice(0, 400)}); the whole record: \`cardctl mock requests show ${id}\`.`
    : `The mock's record of this request: \`cardctl mock requests show ${id}\`.`;
  const copy = withHint(err, err.hint ? `${err.hint} ${explanation}` : explanation, { cause: err.cause });
  return Object.assign(copy, { mockRequest: id });
}

// ---- transport failures: the request got no answer -------------------------------------------

/** A transport failure, by what it tells about the request: maybe applied, or surely not sent. */
export function classifyTransport(outcome: TransportOutcome, ctx: ErrorContext): CardctlError {
  const code = transportCode(outcome.error);
  const detail = (outcome.error as Error | undefined)?.message ?? String(outcome.error);
  const f = { code, detail, cause: outcome.error };
  if (code === 'PROXY_URL_INVALID') return proxyUrlInvalid(f, ctx);
  if (outcome.maybeSent && ctx.money) return moneyConnectionLost(f, ctx);
  if (outcome.maybeSent && !SAFE_METHODS.has(ctx.method.toUpperCase())) return writeConnectionLost(f, ctx);
  if (failedProxy(outcome.error)) return proxyFailed(f, ctx);
  if (code && /CERT|UNABLE_TO_VERIFY|SELF_SIGNED|ERR_TLS/.test(code)) return tlsRefused({ ...f, code }, ctx);
  return unreachable(f, ctx);
}

interface TransportFacts {
  code: string | undefined;
  detail: string;
  cause: unknown;
}

const moneyConnectionLost = (f: TransportFacts, ctx: ErrorContext): CardctlError => {
  const key = ctx.idempotencyKey;
  return new CardctlError(
    `the connection ended before an answer to ${ctx.method} ${ctx.url} (${f.code ?? f.detail}).`,
    {
      kind: 'outcome_unknown',
      hint: replayHint(key, ctx.journalId),
      code: f.code ?? 'connection_lost',
      idempotencyKey: key,
      cause: f.cause,
    },
  );
};

// the write left this machine: the server may have applied it, and it has no key to replay
const writeConnectionLost = (f: TransportFacts, ctx: ErrorContext): CardctlError =>
  new CardctlError(
    `no answer to ${ctx.method} ${ctx.url} (${f.code ?? f.detail}), but the request was sent: it may have been processed.`,
    {
      kind: 'outcome_unknown',
      hint: 'Check before resending (e.g. GET the resource or the list): sending it again may apply it twice.',
      code: f.code ?? 'connection_lost',
      cause: f.cause,
    },
  );

// nothing was sent: the proxy variable could not be read (its value is never shown: it may hold a password)
const proxyUrlInvalid = (f: TransportFacts, ctx: ErrorContext): CardctlError => {
  const variable = String((f.cause as { variable?: unknown }).variable ?? 'the proxy variable');
  return new CardctlError(`${f.detail}: ${ctx.method} ${ctx.url} was not sent.`, {
    kind: 'usage',
    hint: `Fix ${variable} (e.g. http://proxy.example.com:3128, or http://user:password@host:port with the password percent-encoded), or unset it.`,
    code: 'proxy_url_invalid',
    cause: f.cause,
  });
};

const proxyFailed = (f: TransportFacts, ctx: ErrorContext): CardctlError =>
  new CardctlError(`${f.detail}: ${ctx.method} ${ctx.url} was not sent.`, {
    kind: 'unavailable',
    hint: 'Check that the proxy is up and lets this request through (HTTPS_PROXY, HTTP_PROXY), or exempt the host with NO_PROXY; `cardctl doctor` shows the proxy in use.',
    code: f.code ?? 'proxy_failed',
    cause: f.cause,
  });

/** What is wrong with a refused certificate, by Node's code: the name, the dates, or who signed it. */
function tlsProblem(code: string, detail: string): { what: string; hint: string } {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || /altname|does not match/i.test(detail))
    return {
      what: 'its TLS certificate is for another host name',
      hint: "The certificate's names do not include this host: check the base URL's host name (a typo, an IP address instead of the name, or a proxy answering for another host). A CA file does not change this.",
    };
  if (code === 'CERT_HAS_EXPIRED')
    return {
      what: 'its TLS certificate has expired',
      hint: "The server's certificate is past its end date: the service must renew it. If it was renewed, check this machine's clock (`date`; NTP). A CA file does not change this.",
    };
  if (code === 'CERT_NOT_YET_VALID')
    return {
      what: 'its TLS certificate is not valid yet',
      hint: "The certificate's start date is in the future: check this machine's clock (`date`; `timedatectl set-ntp true`). A CA file does not change this.",
    };
  return {
    what: 'its TLS certificate is not trusted',
    hint: "It is signed by a CA this machine does not trust. If a private CA or a company proxy signs it, trust that CA with --ca-file FILE, CARDCTL_CA_FILE or the profile's ca_file (`cardctl profiles add ... --ca-file FILE`).",
  };
}

const tlsRefused = (f: TransportFacts & { code: string }, ctx: ErrorContext): CardctlError => {
  const { what, hint } = tlsProblem(f.code, f.detail);
  return new CardctlError(`cannot reach ${ctx.url}: ${what} (${f.code}).`, {
    kind: 'unavailable',
    hint,
    code: f.code,
    cause: f.cause,
  });
};

const TIMEOUT_CODES = new Set(['HEADERS_TIMEOUT', 'BODY_TIMEOUT', 'CONNECT_TIMEOUT']);

const unreachable = (f: TransportFacts, ctx: ErrorContext): CardctlError =>
  new CardctlError(
    f.code && TIMEOUT_CODES.has(f.code)
      ? `no answer from ${ctx.url} in time.`
      : `cannot reach ${ctx.url} (${f.code ?? f.detail}).`,
    {
      kind: 'unavailable',
      hint: `Check ${ctx.baseUrlFrom ?? 'the base URL in use'} and that the service is up, then try again. For the mock: \`cardctl mock start\`; a mock restarted on another port updates the mock-test and mock-live profiles with \`--save-profiles\`.`,
      code: f.code ?? 'unreachable',
      cause: f.cause,
    },
  );

// ---- answers that are not the API's (src/client/answer.ts) ----------------------------------

/**
 * An intermediary answered. A proxy's refusal: nothing was forwarded (exit 8, naming the proxy,
 * never the API key). Anything else on a money operation: the request may have reached the API,
 * and this answer tells nothing of what it did: unknown, the key to replay. On any other request: exit 8.
 */
export function notApiError(outcome: NotApiOutcome, ctx: ErrorContext): CardctlError {
  const n = outcome.notApi;
  const by = namedIntermediary(n);
  // no `status`: that field is the API's status (a batch row's http_status), and the API gave none
  const base = { code: n.reason === 'proxy_refusal' ? 'proxy_refused' : 'not_api_answer' };
  if (n.reason === 'proxy_refusal') {
    const proxyHint = n.proxy
      ? 'Check that the proxy lets this request through (its rules, its credentials in HTTPS_PROXY/HTTP_PROXY), or exempt the host with NO_PROXY; `cardctl doctor` shows the proxy in use.'
      : 'A proxy between cardctl and the API refused it: check its rules and credentials, or the network path to the API (`cardctl doctor`).';
    return new CardctlError(
      `${by} refused ${ctx.method} ${ctx.url} (${n.status} ${n.contentType || 'without a content type'}), not the API: it was not sent on.`,
      { ...base, kind: 'unavailable', hint: proxyHint },
    );
  }
  const what =
    n.reason === 'redirect' ? `a redirect (${n.status})${redirectTarget(outcome.headers, ctx.url)}` : describeNotApi(n);
  if (n.reason === 'redirect' && SAFE_METHODS.has(ctx.method.toUpperCase())) return redirected(n, outcome.headers, ctx);
  if (ctx.money) {
    return new CardctlError(
      `${by} answered ${what}, not the API: the outcome of ${ctx.method} ${ctx.url} is unknown (it may have been charged).`,
      {
        ...base,
        kind: 'outcome_unknown',
        idempotencyKey: ctx.idempotencyKey,
        hint: replayHint(ctx.idempotencyKey, ctx.journalId),
      },
    );
  }
  const write = !SAFE_METHODS.has(ctx.method.toUpperCase());
  return new CardctlError(`${by} answered ${what} to ${ctx.method} ${ctx.url}, not the API.`, {
    ...base,
    kind: write ? 'outcome_unknown' : 'unavailable',
    hint:
      n.reason === 'redirect'
        ? `The API does not redirect: check ${ctx.baseUrlFrom ?? 'the base URL in use'} (its own address, https://, the /api/v1 prefix; \`cardctl doctor\` shows it). The redirect was not followed; the request may have reached the API: check the resource before resending.`
        : `Something between cardctl and the API answered (a gateway, a proxy, a captive portal): check the network and ${ctx.baseUrlFrom ?? 'the base URL in use'} (\`cardctl doctor\`), then try again.${write ? ' The request may have reached the API: check the resource before resending.' : ''}`,
  });
}

const redirectTarget = (headers: Record<string, string | string[] | undefined>, url: string): string => {
  const to = locationHost(header(headers, 'location'), url);
  return to ? ` to ${to}` : '';
};

// ---- answers: one row per status class --------------------------------------------------------

/** What every status rule reads from an answer. */
interface AnswerParts {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  message: string | undefined;
  errors: Record<string, unknown>;
  code: string | undefined;
  /** ` (message)` or '' */
  said: string;
  /** the fields every answer error carries */
  base: {
    status: number;
    errors: Record<string, unknown>;
    code: string | undefined;
    idempotencyKey: string | undefined;
  };
}

function answerParts(outcome: AnswerOutcome, ctx: ErrorContext): AnswerParts {
  const { status, body, headers } = outcome;
  const { message, errors } = envelopeParts(body);
  const code = firstCode(errors);
  const key = ctx.money ? ctx.idempotencyKey : undefined;
  return {
    status,
    body,
    headers,
    message,
    errors,
    code,
    said: message ? ` (${message})` : '',
    base: { status, errors, code, idempotencyKey: key },
  };
}

interface StatusRule {
  when: (a: AnswerParts) => boolean;
  /** null: a success */
  error: (a: AnswerParts, ctx: ErrorContext) => CardctlError | null;
}

const is5xx = (s: number): boolean => s >= 500 && s < 600;

/** First match wins; no match is an unexpected answer. */
const STATUS_TABLE: readonly StatusRule[] = [
  { when: (a) => a.status === 202, error: accepted },
  { when: (a) => a.status >= 200 && a.status < 300, error: () => null },
  { when: (a) => a.status === 401 || a.status === 403, error: refusedByGateway },
  {
    when: (a) => a.status === 404,
    error: (a, ctx) =>
      new CardctlError(`not found: ${ctx.method} ${ctx.url}${a.said}.`, {
        ...a.base,
        kind: 'not_found',
        hint: notFoundHint(a.message, ctx),
      }),
  },
  // the list items are human messages, not codes: `code` says what kind of refusal this is
  {
    when: (a) => a.status === 422 && a.message === 'Validation failed.',
    error: (a) =>
      new CardctlError('the API refused the request: Validation failed.', {
        ...a.base,
        code: 'validation_failed',
        kind: 'usage',
        hint: 'Fix each item listed (body fields, or query parameters such as per_page and cursor) and send again.',
      }),
  },
  { when: (a) => a.status === 409 || a.status === 422, error: refusedByRule },
  { when: (a) => a.status === 429, error: rateLimited },
  {
    when: (a) => a.status === 503,
    error: (a) =>
      new CardctlError(`service unavailable (503)${a.said}.`, {
        ...a.base,
        kind: 'unavailable',
        hint: 'Nothing was charged: try again shortly.',
      }),
  },
  { when: (a) => is5xx(a.status), error: serverFailed },
  {
    when: (a) => a.status === 400,
    error: (a) =>
      new CardctlError(`bad request (400)${a.said}.`, {
        ...a.base,
        kind: 'usage',
        hint: 'Check the path, query and body.',
      }),
  },
  { when: (a) => a.status === 431 || a.status === 414, error: tooLarge },
];

/**
 * 431 (headers too large) or 414 (URI too long): the user's input, said with its size; the path
 * is not echoed (it may be 100 KB, and it is already on the user's command line).
 */
function tooLarge(a: AnswerParts, ctx: ErrorContext): CardctlError {
  let target = ctx.url;
  try {
    const u = new URL(ctx.url);
    target = u.pathname + u.search;
  } catch {
    /* not a URL: its whole length */
  }
  return new CardctlError(
    `request too large: the path${target.includes('?') ? ' and query are' : ' is'} ${target.length} characters; the server refused it (${a.status}).`,
    {
      ...a.base,
      kind: 'usage',
      code: 'request_too_large',
      hint: 'Servers take a request line of a few kilobytes at most: check the id in the path, and send long data in the body or as several requests.',
    },
  );
}

/** The host a `Location` header points to (never its userinfo, path or query), or undefined. */
function locationHost(location: string | undefined, requestUrl: string): string | undefined {
  if (!location) return undefined;
  try {
    return new URL(location, requestUrl).host || undefined;
  } catch {
    return undefined;
  }
}

/** The API never redirects: a 3xx means the base URL points somewhere else (a portal, http->https). */
function redirected(n: NotApiAnswer, headers: Record<string, string | string[] | undefined>, ctx: ErrorContext) {
  return new CardctlError(
    `${ctx.method} ${ctx.url} was answered with a redirect (${n.status})${redirectTarget(headers, ctx.url)}${n.who ? ` by ${namedIntermediary(n)}` : ''}: the API does not redirect: check the base URL.`,
    {
      status: n.status,
      kind: 'unavailable',
      code: 'redirect',
      hint: `Check ${ctx.baseUrlFrom ?? 'the base URL in use'}: it must be the API's own address, with https:// and the /api/v1 prefix (\`cardctl doctor\` shows it). The redirect was not followed.`,
    },
  );
}

function accepted(a: AnswerParts, ctx: ErrorContext): CardctlError | null {
  if (!ctx.money) return null;
  // the pending card, when the API sent one, carries the id to poll
  const data = (a.body as { data?: { id?: unknown } } | undefined)?.data;
  const pending = data && typeof data === 'object' && typeof data.id === 'string' ? data : undefined;
  return new CardctlError('accepted, but not final yet (202).', {
    ...a.base,
    kind: 'outcome_unknown',
    hint: replayHint(a.base.idempotencyKey, ctx.journalId),
    data: pending,
  });
}

/** The hint for each gateway code of a 401/403 (SIGNING.md's refusals). */
const GATEWAY_HINTS: Record<string, (ctx: ErrorContext, who: string) => string> = {
  invalid_signature: (ctx, who) =>
    `The server computed a different signature: check that the secret of ${who} belongs to key ${ctx.keyId ?? '(unknown)'}; run with --verbose to see the canonical string, or \`cardctl sign diagnose\`.`,
  invalid_api_key: (ctx) =>
    `Key ${ctx.keyId ?? ''} is unknown, revoked or expired: ${ctx.profileName ? `give profile "${ctx.profileName}" a current key (\`cardctl profiles add ${ctx.profileName} --force ...\`)` : 'set CARDCTL_API_KEY and CARDCTL_API_SECRET to a current key'}.`,
  missing_signature_headers: () =>
    'A signing header did not reach the server: check for a proxy that strips X-Api-Key, X-Timestamp, X-Nonce or X-Signature.',
  ip_not_allowed: () =>
    "This machine's address is not on the key's IP allowlist: add it in the portal or use another key.",
  out_of_scope: () => "The key lacks this route's scope: use a key with the scope (see `cardctl doctor`).",
};

/**
 * cardctl's own mock (its answers carry X-Cardctl-Mock-Request) refused the profile's key: a mock
 * restarted without --state has new keys, and without --save-profiles the profiles keep the old
 * ones. Restarting it with --save-profiles is the way out.
 */
function restartedMockHint(profile: string, keyId: string | undefined): string {
  const saved = /^mock-(test|live)(-\d+)?$/.test(profile);
  return (
    `This mock does not know key ${keyId ?? ''} of profile "${profile}": a mock restarted (without --state) has new keys. ` +
    `Restart it with \`cardctl mock start --save-profiles\`, which saves its keys as profiles mock-test and mock-live` +
    (saved
      ? '.'
      : `, then use \`-p mock-test\` (or give profile "${profile}" the mock's key: \`cardctl profiles add ${profile} --force ...\`).`)
  );
}

function refusedByGateway(a: AnswerParts, ctx: ErrorContext): CardctlError {
  const base = { ...a.base, kind: 'auth' as const };
  if (a.code === 'timestamp_out_of_window') {
    const skew = clockSkewSeconds(header(a.headers, 'date'), ctx.localNowMs);
    if (skew !== undefined && skew !== 0) {
      return new CardctlError(
        `clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the server: fix the clock.`,
        {
          ...base,
          hint: 'Requests must be signed within 300 s of the server time; enable NTP (e.g. `timedatectl set-ntp true`).',
        },
      );
    }
  }
  const text = `${a.status === 401 ? 'unauthorized' : 'forbidden'}${a.code ? `: ${a.code}` : ''}.`;
  // credentials from the environment have no profile: name the variables
  const who = ctx.profileName ? `profile "${ctx.profileName}"` : 'CARDCTL_API_SECRET';
  const byCode = a.code ? GATEWAY_HINTS[a.code] : undefined;
  let hint: string;
  if (a.code === 'timestamp_out_of_window')
    hint = 'The signature timestamp is more than 300 s from the server time: fix the local clock (NTP).';
  else if (a.code === 'invalid_api_key' && ctx.profileName && header(a.headers, 'x-cardctl-mock-request'))
    hint = restartedMockHint(ctx.profileName, ctx.keyId);
  else if (byCode) hint = byCode(ctx, who);
  // a 403 without a gateway code is the live-only refusal of the funding routes
  else if (a.status === 403 && a.message)
    hint = `${a.message.replace(/\.?$/, '.')} Use a live key (\`-p LIVE_PROFILE\`).`;
  else
    hint = ctx.profileName
      ? `Check profile "${ctx.profileName}" (\`cardctl profiles show ${ctx.profileName}\`).`
      : 'Check CARDCTL_API_KEY and CARDCTL_API_SECRET.';
  return new CardctlError(text, { ...base, hint });
}

/** The hint for each business-rule code of a 409/422 (the spec's error tables). */
const BUSINESS_HINTS: Record<string, string> = {
  payload_mismatch: `This idempotency key was used with a different body: send the original body, or use a new key for a new operation.`,
  insufficient_funds: 'The wallet cannot cover the amount and fees: fund the wallet or lower the amount.',
  kyc_not_approved: 'The customer is not approved yet: wait for approval, then send the same command again.',
  issue_failed:
    "The issuer refused; nothing was charged for it: it may be sent again with a NEW idempotency key (in a --batch, a new --idempotency-prefix gives every row a new key: only once no row's outcome is unknown).",
  termination_blocked: 'The card is too new to terminate: freeze it now and terminate it later.',
  invalid_state: 'The operation does not apply in the card’s current state: check it with `cardctl cards get`.',
  replay_detected: 'A nonce was reused: send the request again (every attempt gets a fresh nonce).',
  in_flight: 'The same idempotency key is still being processed: try again shortly.',
  no_default:
    'There is no default product: name one with --product ID (product ids come from your account; the mock lists its own).',
  unavailable: 'This product has no route to an issuer now: use another product, or try later.',
  not_enabled: 'This deposit network is turned off: use an enabled one (the 422 for an unknown network lists them).',
  below_minimum: 'The initial load is under the product minimum: raise --amount.',
  invalid: 'The customer cannot be issued a card (e.g. disabled): check it with `cardctl customers get`.',
  kyc_incomplete:
    'Fields the verification needs are missing: add them with `cardctl customers update`, then submit again.',
};

function refusedByRule(a: AnswerParts, ctx: ErrorContext): CardctlError {
  if (a.code === 'in_flight' && ctx.money) {
    return new CardctlError('the same idempotency key is still being processed (in_flight).', {
      ...a.base,
      kind: 'outcome_unknown',
      hint: replayHint(a.base.idempotencyKey, ctx.journalId),
    });
  }
  return new CardctlError(`refused${a.code ? `: ${a.code}` : ''}${a.said}.`, {
    ...a.base,
    kind: 'business',
    hint:
      (a.code && BUSINESS_HINTS[a.code]) ??
      (hasCode(a.errors, 'idempotency_key') ? 'Send an Idempotency-Key header.' : undefined),
  });
}

function rateLimited(a: AnswerParts, ctx: ErrorContext): CardctlError {
  const after = retryAfterSeconds(a.headers, ctx.localNowMs);
  return new CardctlError('rate limited (429) after the allowed retries.', {
    ...a.base,
    kind: 'rate_limited',
    code: a.code ?? 'exceeded',
    hint: `Wait${after !== undefined ? ` ${after} s` : ''} and try again, or lower the request rate (${header(a.headers, 'x-ratelimit-limit') ?? 600} per minute for this key).`,
  });
}

function serverFailed(a: AnswerParts, ctx: ErrorContext): CardctlError {
  if (ctx.money) {
    // 503 is its own row; a 502/504 may come from a proxy that did forward the request
    const via = a.status === 500 ? '' : ' (a gateway or proxy may have forwarded it)';
    return new CardctlError(`server error (${a.status}) on a money operation${via}: it may have succeeded.`, {
      ...a.base,
      kind: 'outcome_unknown',
      hint: replayHint(a.base.idempotencyKey, ctx.journalId),
    });
  }
  // nothing moves money here: the service failed, which a retry later may fix (exit 8)
  const write = !SAFE_METHODS.has(ctx.method.toUpperCase());
  return new CardctlError(`the service failed (${a.status})${a.said}: retry later.`, {
    ...a.base,
    kind: 'unavailable',
    hint: write
      ? 'No money moves on this call. It may still have been applied: check the resource (GET it) before resending.'
      : 'No money moves on this call: try again later; run with --verbose to see the exchange.',
  });
}

const unexpectedAnswer = (a: AnswerParts, ctx: ErrorContext): CardctlError =>
  new CardctlError(`unexpected answer ${a.status} from ${ctx.method} ${ctx.url}${a.said}.`, {
    ...a.base,
    kind: 'unexpected',
    hint: 'Run again with --verbose to see the exchange; if it persists, report it.',
  });

/** The journal's answer (a type-only import: erased at run time, so errors.ts stays a leaf). */
type JournalAnswer = JournalReport;

const hoursAgo = (iso: string, nowMs: number): string => {
  const h = (nowMs - Date.parse(iso)) / 3_600_000;
  return Number.isFinite(h) && h >= 0
    ? `${h < 100 ? h.toFixed(1) : Math.round(h)} h ago`
    : 'at a time the clock is now behind';
};

/** Why the journal answers instead of the API, for people. */
export function journalReason(r: JournalAnswer, nowMs: number): string {
  const from = r.sent_from ? `, from ${r.sent_from}` : '';
  return r.why === 'key_forgotten'
    ? `Idempotency-Key ${r.idempotency_key} was first sent ${hoursAgo(r.first_sent_at, nowMs)} (${r.first_sent_at}, ${r.journal_id}${from}); the API forgets a key after 24 h, so sending it again would be a new charge: it was not sent.`
    : `row already resolved in the journal (${r.journal_id}${from}): not sent again.`;
}

/**
 * The journal's answer for an operation that is not sent again (src/client/money-rules.ts), as an
 * error when it is not a success: unknown exits 7 and says how to find out; a recorded refusal
 * exits with the class of the original refusal (404: 4, a 422 validation: 2, any other refusal or
 * a failure recorded with `ops resolve`: 5). A key sent with another request never gets here:
 * rule 5 of src/client/money-rules.ts refuses it first.
 */
export function journalError(r: JournalAnswer, nowMs: number): CardctlError | null {
  if (r.outcome === 'succeeded') return null;
  // nothing was sent, so no HTTP status of its own: the recorded one is in `data`
  const base = { idempotencyKey: r.idempotency_key, data: r };
  if (r.outcome === 'unknown') {
    const how = r.id ? `\`cardctl cards get ${r.id}\`` : 'the portal (the journal knows no card id for it)';
    return new CardctlError(`${journalReason(r, nowMs)} Its outcome is unknown.`, {
      ...base,
      kind: 'outcome_unknown',
      code: 'key_forgotten',
      hint: `Find out with ${how}, then record it: \`cardctl ops resolve ${r.journal_id} --outcome succeeded|failed\`. Do not send it with a new key unless you know it failed.`,
    });
  }
  const what =
    r.recorded_by === 'ops resolve'
      ? `recorded as failed with \`ops resolve\`${r.note ? ` ("${r.note}")` : ''}`
      : `refused (${r.status}${r.code ? ` ${r.code}` : ''})`;
  const kind = r.status === 404 ? 'not_found' : r.code === 'validation_failed' ? 'usage' : 'business';
  return new CardctlError(`${journalReason(r, nowMs)} The journal holds its outcome: ${what}.`, {
    ...base,
    kind,
    code: r.code ?? 'failed',
    hint:
      r.why === 'key_forgotten'
        ? "Nothing was charged by it; to try again, use a new idempotency key (in a --batch, a new --idempotency-prefix: only once no row's outcome is unknown)."
        : "An edited row gets a new key; to send it again unchanged, use another --idempotency-prefix, only once no row's outcome is unknown (a row's key comes from what it asks, not from the file; another prefix gives every row a new key).",
  });
}
