// A failing request as support staff receive it, in any of the forms people paste: raw HTTP (a
// proxy dump, `curl -v`: raw-request.ts), a curl command line (a browser's or Postman's "Copy as
// cURL": -X, -H, -d/--data-raw/--data-binary, '...', "..." and $'...' quoting, `\` line ends), or
// a HAR file (a browser's or a proxy's export: each request of it). One parser for `sign diagnose
// --request` and the console's diagnosis box. Pure: bytes in, requests out.
import { parseRawRequest, RawRequestError, splitTarget, type RawHeader, type RawRequest } from './raw-request.js';

export type PastedForm = 'http' | 'curl' | 'har';

/** Which form a pasted text is in. */
export function pastedForm(text: string): PastedForm {
  const t = text.replace(/^\uFEFF/, '').trimStart();
  if (t.startsWith('{')) return 'har';
  if (/^curl(?:\.exe)?\s/i.test(t)) return 'curl';
  return 'http';
}

/** Every request in the pasted text (one, except a HAR file's), or a RawRequestError saying what is wrong. */
export function parsePastedRequests(input: string | Uint8Array): RawRequest[] {
  const text = typeof input === 'string' ? input : Buffer.from(input).toString('utf8');
  const form = pastedForm(text);
  if (form === 'har') return parseHar(text);
  if (form === 'curl') return [parseCurl(text)];
  return [parseRawRequest(input)];
}

const ANSI_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  v: '\v',
};

/** `$'...'`: the ANSI-C escapes of bash, from just after the opening quote; the value and the index after the closing quote. */
function ansiQuoted(s: string, from: number): [string, number] {
  let out = '';
  let i = from;
  while (i < s.length && s[i] !== "'") {
    if (s[i] !== '\\') {
      out += s[i++];
      continue;
    }
    const c = s[i + 1] ?? '';
    const hex = c === 'x' ? /^[0-9a-fA-F]{1,2}/.exec(s.slice(i + 2)) : null;
    const uni = c === 'u' || c === 'U' ? /^[0-9a-fA-F]{1,8}/.exec(s.slice(i + 2)) : null;
    const oct = /^[0-7]{1,3}/.exec(s.slice(i + 1));
    if (hex) [out, i] = [out + String.fromCharCode(parseInt(hex[0], 16)), i + 2 + hex[0].length];
    else if (uni)
      [out, i] = [
        out + String.fromCodePoint(parseInt(uni[0].slice(0, c === 'u' ? 4 : 8), 16)),
        i + 2 + Math.min(uni[0].length, c === 'u' ? 4 : 8),
      ];
    else if (oct) [out, i] = [out + String.fromCharCode(parseInt(oct[0], 8)), i + 1 + oct[0].length];
    else [out, i] = [out + (ANSI_ESCAPES[c] ?? c), i + 2];
  }
  if (i >= s.length) throw new RawRequestError("a $'...' quote is not closed");
  return [out, i + 1];
}

/** The words of a shell command line (POSIX quoting and bash's $'...'; `\` + newline joins lines). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const s = line.replace(/\\\r?\n/g, ' ').replace(/\^\r?\n/g, ' ');
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) throw new RawRequestError("a '...' quote is not closed");
      word = (word ?? '') + s.slice(i + 1, end);
      i = end + 1;
    } else if (c === '$' && s[i + 1] === "'") {
      const [v, next] = ansiQuoted(s, i + 2);
      word = (word ?? '') + v;
      i = next;
    } else if (c === '"') {
      let v = '';
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\' && i + 1 < s.length && '"\\$`'.includes(s[i + 1]!)) i++;
        v += s[i++];
      }
      if (i >= s.length) throw new RawRequestError('a "..." quote is not closed');
      word = (word ?? '') + v;
      i++;
    } else if (c === '\\' && i + 1 < s.length) {
      word = (word ?? '') + s[i + 1];
      i += 2;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

const DATA_OPTIONS = new Set(['-d', '--data', '--data-raw', '--data-binary', '--data-ascii', '--json']);
/** curl's options that take a value and do not change the request's signed parts */
const VALUE_OPTIONS = new Set(
  '-o --output -u --user -A --user-agent -e --referer -b --cookie -c --cookie-jar -m --max-time --connect-timeout -x --proxy -w --write-out --cacert --cert -E --key --resolve --retry --limit-rate -r --range --interface --dns-servers -K --config'.split(
    ' ',
  ),
);

function request(method: string, url: string, headers: RawHeader[], body: Buffer, notes: string[]): RawRequest {
  const { path, query } = splitTarget(url);
  if (!path.startsWith('/'))
    throw new RawRequestError(`the URL ${JSON.stringify(url)} has no path such as /api/v1/...`);
  const target = query ? `${path}?${query}` : path;
  return {
    method: method.toUpperCase(),
    target,
    path,
    query,
    httpVersion: '1.1',
    headers,
    body,
    bodySource: body.length ? 'content-length' : 'none',
    comments: [],
    format: 'plain',
    notes,
  };
}

/** A curl command line ("Copy as cURL"): the method, URL, headers and body it sends. */
export function parseCurl(text: string): RawRequest {
  const words = shellWords(text.trim());
  let method: string | undefined;
  let url: string | undefined;
  let head = false;
  const headers: RawHeader[] = [];
  const data: string[] = [];
  const notes: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const eq = w.startsWith('--') ? w.indexOf('=') : -1;
    const [name, inline] = eq > 0 ? [w.slice(0, eq), w.slice(eq + 1)] : [w, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      if (name.length > 2 && /^-[A-Za-z]/.test(name) && !name.startsWith('--')) return name.slice(2);
      const v = words[++i];
      if (v === undefined) throw new RawRequestError(`curl's ${name} needs a value`);
      return v;
    };
    const short = name.startsWith('--') ? name : name.slice(0, 2);
    if (short === '-X' || name === '--request') method = value();
    else if (short === '-H' || name === '--header') {
      const h = value();
      const colon = h.indexOf(':');
      if (colon > 0) headers.push({ name: h.slice(0, colon).trim(), value: h.slice(colon + 1).trim() });
    } else if (DATA_OPTIONS.has(name) || short === '-d') {
      const v = value();
      if (v.startsWith('@') && name !== '--data-raw')
        throw new RawRequestError(
          `the body is read from a file (${name} ${v}): paste the body itself (--data-raw '...')`,
        );
      data.push(v);
      if (name === '--json' && !headers.some((h) => h.name.toLowerCase() === 'content-type'))
        headers.push({ name: 'Content-Type', value: 'application/json' });
    } else if (name === '--url') url = value();
    else if (short === '-I' || name === '--head') head = true;
    else if (VALUE_OPTIONS.has(name) || VALUE_OPTIONS.has(short)) value();
    else if (name.startsWith('-') && name !== '-')
      notes.push(`curl's ${name} was ignored (it does not change what is signed)`);
    else url ??= w;
  }
  if (!url) throw new RawRequestError('the curl command names no URL');
  const body = Buffer.from(data.join('&'), 'utf8');
  return request(method ?? (head ? 'HEAD' : data.length ? 'POST' : 'GET'), url, headers, body, notes);
}

interface HarEntry {
  request?: { method?: unknown; url?: unknown; headers?: unknown; postData?: { text?: unknown } };
}

/** The requests of a HAR file (`log.entries[].request`) that went to the API (`/api/v1`). */
export function parseHar(text: string): RawRequest[] {
  let har: { log?: { entries?: unknown } };
  try {
    har = JSON.parse(text.replace(/^\uFEFF/, '')) as typeof har;
  } catch {
    throw new RawRequestError(
      'the text starts like JSON but is not: a HAR file is the JSON a browser exports ("Save all as HAR")',
    );
  }
  const entries = har?.log?.entries;
  if (!Array.isArray(entries)) throw new RawRequestError('the JSON is no HAR file: it has no log.entries');
  const out: RawRequest[] = [];
  for (const e of entries as HarEntry[]) {
    const r = e?.request;
    if (!r || typeof r.method !== 'string' || typeof r.url !== 'string') continue;
    if (!/\/api\/v1(?:[/?#]|$)/.test(r.url)) continue;
    const headers = (Array.isArray(r.headers) ? r.headers : [])
      .filter(
        (h): h is RawHeader => typeof h?.name === 'string' && typeof h?.value === 'string' && !h.name.startsWith(':'),
      )
      .map((h) => ({ name: h.name, value: h.value }));
    const body = typeof r.postData?.text === 'string' ? Buffer.from(r.postData.text, 'utf8') : Buffer.alloc(0);
    out.push(request(r.method, r.url, headers, body, []));
  }
  if (out.length === 0) throw new RawRequestError('the HAR file has no request to the API (no URL with /api/v1)');
  return out;
}
