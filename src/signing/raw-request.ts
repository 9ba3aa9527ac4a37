// Parses a failing request written as raw HTTP/1.1 text, the way a proxy dump or `curl -v`
// shows it, for `cardctl sign diagnose`. Works on bytes: the body is kept exactly as written,
// because a single changed byte changes the signature.
//
// Accepted:
// - an optional preamble of `#` comment lines (kept in `comments`; `# body_sha256: <hex>` and
//   `# canonical: "<JSON string>"` are read by diagnose);
// - `METHOD target [HTTP/x]`, target in origin-form (`/api/v1/cards?x=1`) or absolute-form
//   (`https://host/api/v1/cards?x=1`);
// - header lines `Name: value` (obsolete folded continuation lines are joined);
// - a blank line, then the body. With `Content-Length` the body is exactly that many bytes (a
//   final newline an editor added is ignored); with `Transfer-Encoding: chunked` it is decoded;
//   otherwise it is the rest of the text (`bodySource: 'rest'`, the final newline is ambiguous).
// - `curl -v` output: `> ` lines are the request, `* `, `< `, `{ [n bytes data]` lines are
//   curl's own and skipped; a body pasted after the request's `>` block is taken as the body.
// LF or CRLF line ends both work.

export interface RawHeader {
  name: string;
  value: string;
}

export interface RawRequest {
  method: string;
  /** the request target exactly as written on the request line */
  target: string;
  /** path without the query (origin part stripped from an absolute-form target) */
  path: string;
  /** the raw query as sent, without `?`; empty when there is none */
  query: string;
  httpVersion: string;
  headers: RawHeader[];
  body: Buffer;
  /** how the end of the body was found */
  bodySource: 'none' | 'content-length' | 'chunked' | 'rest';
  /** preamble lines that started with `#`, without the `#` and trimmed */
  comments: string[];
  format: 'plain' | 'curl';
  /** things noticed while parsing that the user should know (e.g. body shorter than Content-Length) */
  notes: string[];
}

export class RawRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RawRequestError';
  }
}

/** First value of a header, case-insensitive. */
export function headerValue(req: Pick<RawRequest, 'headers'>, name: string): string | undefined {
  const lower = name.toLowerCase();
  return req.headers.find((h) => h.name.toLowerCase() === lower)?.value;
}

interface Line {
  text: string;
  /** byte offset of the line start */
  start: number;
  /** byte offset just after the line's `\n` (or the end of input) */
  next: number;
}

function splitLines(buf: Buffer, from: number): Line[] {
  const lines: Line[] = [];
  let start = from;
  while (start < buf.length) {
    let nl = buf.indexOf(0x0a, start);
    const next = nl < 0 ? buf.length : nl + 1;
    if (nl < 0) nl = buf.length;
    const end = nl > start && buf[nl - 1] === 0x0d ? nl - 1 : nl;
    lines.push({ text: buf.subarray(start, end).toString('utf8'), start, next });
    start = next;
  }
  return lines;
}

const CURL_DATA_MARKER = /^[{}] \[\d+ bytes data\]$/;
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

function parseRequestLine(line: string): { method: string; target: string; httpVersion: string } {
  const parts = line.trim().split(/\s+/);
  const [method, target, httpVersion = 'HTTP/1.1'] = parts;
  if (!method || !target || parts.length > 3 || !/^[A-Za-z]+$/.test(method)) {
    throw new RawRequestError(
      `the first line must be a request line like "POST /api/v1/cards HTTP/1.1", not ${JSON.stringify(line.slice(0, 80))}`,
    );
  }
  if (!target.startsWith('/') && !ABSOLUTE_FORM.test(target)) {
    throw new RawRequestError(
      `the request target ${JSON.stringify(target)} must start with "/" or be a full URL (https://host/api/v1/...)`,
    );
  }
  return { method, target, httpVersion };
}

/** Splits a request target into the path and the raw query, dropping scheme and authority. */
export function splitTarget(target: string): { path: string; query: string } {
  let rest = target;
  if (ABSOLUTE_FORM.test(rest)) {
    const afterScheme = rest.indexOf('://') + 3;
    const m = /[/?#]/.exec(rest.slice(afterScheme));
    rest = m ? rest.slice(afterScheme + m.index) : '/';
    if (rest.startsWith('?')) rest = '/' + rest;
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  return q < 0 ? { path: rest, query: '' } : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

function parseHeaderLines(texts: string[], lenient: boolean): RawHeader[] {
  const headers: RawHeader[] = [];
  for (const text of texts) {
    if (/^[ \t]/.test(text) && headers.length > 0) {
      // obsolete line folding: a continuation of the previous header's value
      headers[headers.length - 1]!.value = `${headers[headers.length - 1]!.value} ${text.trim()}`.trim();
      continue;
    }
    const colon = text.indexOf(':');
    if (colon <= 0) {
      if (lenient) continue;
      throw new RawRequestError(
        `${JSON.stringify(text.slice(0, 80))} is not a header line ("Name: value"); leave one blank line between the headers and the body`,
      );
    }
    headers.push({ name: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() });
  }
  return headers;
}

function decodeChunked(raw: Buffer): Buffer | null {
  const out: Buffer[] = [];
  let pos = 0;
  for (let guard = 0; guard < 1_000_000; guard++) {
    const nl = raw.indexOf('\n', pos);
    if (nl < 0) return null;
    const sizeText = raw.subarray(pos, nl).toString('latin1').replace(/\r$/, '').split(';')[0]!.trim();
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) return null;
    const size = parseInt(sizeText, 16);
    pos = nl + 1;
    if (size === 0) return Buffer.concat(out);
    if (pos + size > raw.length) return null;
    out.push(raw.subarray(pos, pos + size));
    pos += size;
    if (raw[pos] === 0x0d) pos++;
    if (raw[pos] === 0x0a) pos++;
  }
  return null;
}

/** Applies Content-Length / chunked framing to the bytes that followed the headers. */
function frameBody(
  headers: RawHeader[],
  rest: Buffer,
  notes: string[],
): { body: Buffer; bodySource: RawRequest['bodySource'] } {
  const te = headerValue({ headers }, 'transfer-encoding');
  if (te && /chunked/i.test(te)) {
    const decoded = decodeChunked(rest);
    if (decoded) return { body: decoded, bodySource: 'chunked' };
    notes.push('Transfer-Encoding is chunked but the body is not valid chunked data: the body was taken as written.');
  }
  const cl = headerValue({ headers }, 'content-length');
  if (cl !== undefined && /^\d+$/.test(cl)) {
    const n = Number(cl);
    if (rest.length < n) {
      notes.push(
        `Content-Length says ${n} bytes but the file has ${rest.length} after the headers: the body was taken as written.`,
      );
      return { body: rest, bodySource: rest.length ? 'rest' : 'none' };
    }
    const extra = rest.subarray(n);
    if (extra.toString('latin1').trim() !== '') {
      notes.push(`the file has ${extra.length} bytes after the Content-Length (${n}) of the body; they were ignored.`);
    }
    return { body: rest.subarray(0, n), bodySource: 'content-length' };
  }
  return { body: rest, bodySource: rest.length ? 'rest' : 'none' };
}

export function parseRawRequest(input: string | Uint8Array): RawRequest {
  let buf =
    typeof input === 'string'
      ? Buffer.from(input, 'utf8')
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  const lines = splitLines(buf, 0);
  const comments: string[] = [];
  let i = 0;
  // preamble: blank lines, `#` comments, and curl's `*` info lines before the request
  for (; i < lines.length; i++) {
    const t = lines[i]!.text;
    if (t.trim() === '') continue;
    if (t.startsWith('#')) {
      comments.push(t.slice(1).trim());
      continue;
    }
    if (t.startsWith('* ') || t === '*') continue;
    break;
  }
  if (i >= lines.length)
    throw new RawRequestError(
      'the request is empty: expected a request line like "GET /api/v1/cards HTTP/1.1", headers, a blank line and the body',
    );
  const first = lines[i]!;
  const notes: string[] = [];

  if (first.text.startsWith('>')) return parseCurl(buf, lines, i, comments, notes);

  const { method, target, httpVersion } = parseRequestLine(first.text);
  const headerTexts: string[] = [];
  let j = i + 1;
  for (; j < lines.length && lines[j]!.text !== ''; j++) headerTexts.push(lines[j]!.text);
  const headers = parseHeaderLines(headerTexts, false);
  const bodyStart = j < lines.length ? lines[j]!.next : buf.length;
  const { body, bodySource } = frameBody(headers, buf.subarray(bodyStart), notes);
  return {
    method,
    target,
    ...splitTarget(target),
    httpVersion,
    headers,
    body,
    bodySource,
    comments,
    format: 'plain',
    notes,
  };
}

function parseCurl(buf: Buffer, lines: Line[], i: number, comments: string[], notes: string[]): RawRequest {
  const strip = (t: string): string => (t.startsWith('> ') ? t.slice(2) : t.slice(1));
  const { method, target, httpVersion } = parseRequestLine(strip(lines[i]!.text));
  const headerTexts: string[] = [];
  let j = i + 1;
  for (; j < lines.length && lines[j]!.text.startsWith('>'); j++) {
    const t = strip(lines[j]!.text);
    if (t.trim() === '') {
      j++;
      break;
    }
    headerTexts.push(t);
  }
  const headers = parseHeaderLines(headerTexts, true);
  // A body pasted after the request block: everything up to curl's next own line, skipping
  // curl's data markers. Byte ranges keep the body's bytes as written.
  const pieces: Buffer[] = [];
  for (; j < lines.length; j++) {
    const t = lines[j]!.text;
    if (t.startsWith('< ') || t === '<' || t.startsWith('* ') || t === '*' || t.startsWith('> ')) break;
    if (CURL_DATA_MARKER.test(t)) continue;
    pieces.push(buf.subarray(lines[j]!.start, lines[j]!.next));
  }
  let rest = Buffer.concat(pieces);
  // Blank lines curl leaves between the request and its own next line carry no body.
  if (rest.toString('latin1').trim() === '') rest = Buffer.alloc(0);
  const { body, bodySource } = frameBody(headers, rest, notes);
  return {
    method,
    target,
    ...splitTarget(target),
    httpVersion,
    headers,
    body,
    bodySource,
    comments,
    format: 'curl',
    notes,
  };
}

/** Renders a parsed request back as raw HTTP/1.1 text (CRLF, Content-Length from the body). */
export function formatRawRequest(req: {
  method: string;
  target: string;
  headers: RawHeader[];
  body?: Uint8Array;
}): Buffer {
  const head = [`${req.method} ${req.target} HTTP/1.1`, ...req.headers.map((h) => `${h.name}: ${h.value}`)].join(
    '\r\n',
  );
  return Buffer.concat([Buffer.from(head + '\r\n\r\n', 'utf8'), Buffer.from(req.body ?? new Uint8Array())]);
}
