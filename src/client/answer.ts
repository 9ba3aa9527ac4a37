// What an answer means: the ONE place that tells the API's own answer from an intermediary's
// (PRODUCT.md, "Money operations": only the API's own answers count). Every request goes through
// it (src/client/attempt.ts): single commands, `--batch` rows, `request`, `ops replay`, `doctor`.
//
// - The API's answer: JSON with the spec's envelope (`success` present on every response), parsed
//   whole. Only this one is read for a status, an error code, a card or a balance.
// - An intermediary's: anything else that came over HTTP: a body that is not JSON (a gateway's
//   text 503, a captive portal's HTML 200), a JSON body cut short, JSON without the envelope, a
//   3xx (the API never redirects), a proxy's refusal (a 407, or a plain-HTTP 403/407 of the
//   forward proxy in use). It says nothing about what the API did.
// - No answer at all (a connection error) is a transport outcome (src/client/errors.ts).

export type NotApiReason =
  /** a 3xx: the API never redirects */
  | 'redirect'
  /** without the API's envelope, a 407, or a 403 of the forward proxy in use or signed by a proxy's error header: not forwarded */
  | 'proxy_refusal'
  /** a body that is not JSON (HTML, text) */
  | 'not_json'
  /** a JSON body that does not parse whole */
  | 'cut_short'
  /** no body at all */
  | 'empty'
  /** JSON, but not the spec's envelope */
  | 'no_envelope';

export interface NotApiAnswer {
  reason: NotApiReason;
  status: number;
  /** the answer's media type without parameters, or '' */
  contentType: string;
  /** what the answer says of who sent it (`server: envoy`, `via: 1.1 squid`, `x-squid-error: ...`), or '' */
  who: string;
  /** the forward proxy the request went to (shown without credentials), when one was used in absolute-form */
  proxy?: string;
}

export type AnswerVerdict = { api: true; body: unknown } | { api: false; notApi: NotApiAnswer };

type Headers = Record<string, string | string[] | undefined>;

// not errors.ts's `header`: errors.ts imports this file
const header = (headers: Headers, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Headers that name an intermediary, in the order they are shown. */
const WHO_HEADERS = ['server', 'via', 'x-squid-error', 'x-cache', 'proxy-agent'] as const;

/** `server: envoy, via: 1.1 squid`: what the answer says of who sent it (each value at most 80 characters, printable). */
export function whoAnswered(headers: Headers): string {
  const parts: string[] = [];
  for (const name of WHO_HEADERS) {
    const v = header(headers, name);
    if (v === undefined || v.trim() === '') continue;
    const shown = v.replace(/[^\u0020-\u007e]/gu, '?').trim();
    parts.push(`${name}: ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}`);
  }
  return parts.join(', ');
}

const mediaType = (headers: Headers): string =>
  (header(headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();

const isJsonType = (type: string): boolean => type === 'application/json' || /\+json$/.test(type);

/** The spec's envelope: an object with a boolean `success`. */
const isEnvelope = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { success?: unknown }).success === 'boolean';

/**
 * Whose answer this is. `proxy`: the forward proxy the request was sent to in absolute-form (a
 * plain-HTTP target), whose own 403/407 is its refusal. A HEAD answer has no body to judge: it
 * counts as the API's unless it is a redirect or a 407.
 */
export function judgeAnswer(
  a: { status: number; headers: Headers; text: string; method: string },
  proxy?: string,
): AnswerVerdict {
  const contentType = mediaType(a.headers);
  const notApi = (reason: NotApiReason): AnswerVerdict => ({
    api: false,
    notApi: { reason, status: a.status, contentType, who: whoAnswered(a.headers), ...(proxy ? { proxy } : {}) },
  });
  if (a.status >= 300 && a.status < 400) return notApi('redirect');
  // the server's HTTP layer refused the request line or headers before any handler read them
  // (Node answers these itself, without a body): nothing was done, and the status says why
  if (a.status === 414 || a.status === 431) return { api: true, body: parseWhole(a.text) };
  let body: unknown;
  let parsed = false;
  if (a.text.trim() !== '') {
    try {
      body = JSON.parse(a.text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  const envelope = parsed && isEnvelope(body);
  // a proxy's own refusal: a 407, a 403 of the forward proxy in use, or one that a proxy's error header signs
  const proxyRefusal =
    a.status === 407 || (a.status === 403 && (proxy !== undefined || header(a.headers, 'x-squid-error') !== undefined));
  if (!envelope && proxyRefusal) return notApi('proxy_refusal');
  if (a.method.toUpperCase() === 'HEAD') return { api: true, body: undefined };
  if (envelope) return { api: true, body };
  if (a.text.trim() === '') return notApi('empty');
  if (parsed) return notApi('no_envelope');
  // JSON that does not parse whole: cut short when it begins like JSON
  return notApi(/^\s*[[{]/.test(a.text) ? 'cut_short' : 'not_json');
}

function parseWhole(text: string): unknown {
  try {
    return text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `503 text/plain`, `200 text/html cut short`: the answer in a few words. */
export function describeNotApi(n: NotApiAnswer): string {
  const type = n.contentType || 'without a content type';
  switch (n.reason) {
    case 'empty':
      return `${n.status} with an empty body`;
    case 'cut_short':
      return `${n.status} ${type} cut short (not whole JSON)`;
    case 'no_envelope':
      return `${n.status} ${type} without the API's envelope`;
    case 'not_json':
      return isJsonType(n.contentType) ? `${n.status} ${type} whose body is not JSON` : `${n.status} ${type}`;
    default:
      return `${n.status} ${type}`;
  }
}

/** `an intermediary (server: envoy)` or `the proxy http://host:3128 (server: squid)`. */
export function namedIntermediary(n: NotApiAnswer): string {
  const who = n.who ? ` (${n.who})` : '';
  return n.proxy ? `the proxy ${n.proxy}${who}` : `an intermediary${who}`;
}
