// `sign diagnose`: recompute a failing request's signature and, when it differs, find the
// client mistake that reproduces the signature the client sent. Pure: the secret and the
// clock are passed in.
//
// The search models the client's signer as independent stages (method, path, query,
// timestamp, body hash, how the fields are joined, the HMAC key, how the digest is encoded).
// Each stage has the correct value plus the usual wrong ones. Every single wrong stage is
// tried, then every pair of wrong stages; the digest encoding is checked for free on each
// try (the received signature is decoded once in every plausible encoding). The answer with
// the fewest mistakes wins. Roughly 10^4 HMACs at most (the millisecond-timestamp stage has
// 1000 candidates), well under a second.
//
// diagnose() runs in named phases (headers, timestamp, key id, query, verify, search, the
// client's declared canonical string); the mistakes are a table (diagnose-mistakes.ts) and the
// stages with their wrong values another (diagnose-stages.ts). `sign diagnose` and the mock's
// request log (diagnoseReceived) share it all, so both name the same mistakes with the same ids.
import { createHmac } from 'node:crypto';
import { CANONICAL_FIELD_NAMES } from './visible.js';
import { bodySha256, canonicalPath, canonicalQuery } from './canonical.js';
import { safeEqual } from './compare.js';
import { headerValue, parseRawRequest, type RawRequest } from './raw-request.js';
import { signCanonical } from './request.js';
import { describeMistake, KNOWN_MISTAKES, type DiagnosedMistake, type MistakeId } from './diagnose-mistakes.js';
import {
  buildDimensions,
  checkedIds,
  decodeReceived,
  JOIN_INDEX,
  type Dimension,
  type Variant,
} from './diagnose-stages.js';

export {
  KNOWN_MISTAKES,
  describeMistake,
  type DiagnosedMistake,
  type MistakeId,
  type MistakeInfo,
} from './diagnose-mistakes.js';
export { STAGES } from './diagnose-stages.js';

export const SIGNATURE_HEADERS = ['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature'] as const;
export const TIMESTAMP_WINDOW = 300;

export interface DiagnoseInput {
  /** the request as raw HTTP text (string or bytes) or already parsed */
  request: RawRequest | string | Uint8Array;
  secret: string;
  /** Unix seconds, for the stale-timestamp check; omitted: no check */
  now?: number;
  /** the key id the secret belongs to, to warn when the request names another key */
  keyId?: string;
  /** false: the body is not parsed and re-serialized (the checks of a JSON body signed in another form are skipped) */
  reserializeBody?: boolean;
}

export interface Diagnosis {
  valid: boolean;
  expected_signature: string;
  received_signature: string | null;
  mistakes: DiagnosedMistake[];
  warnings: string[];
  /** true when the signature is valid or the mistakes found reproduce the received signature */
  found: boolean;
  /** the mistakes tried (ids), alone and in pairs */
  checked: MistakeId[];
  canonical: string;
  /** the canonical string the client signed, as the mistakes found reproduce it (absent when none was found) */
  client_canonical?: string;
  body_sha256: string;
  request: { method: string; path: string; query: string; body_bytes: number; key_id: string | null };
  /** the stored profile whose secret reproduces the signature (diagnose-other-secret.ts), never its secret */
  signed_with_profile?: string;
}

function declaredBodyHash(req: RawRequest): string | undefined {
  for (const name of ['x-content-sha256', 'x-body-sha256', 'x-content-sha-256', 'x-body-hash']) {
    const v = headerValue(req, name);
    if (v && /^[0-9a-fA-F]{64}$/.test(v)) return v.toLowerCase();
  }
  const digest = headerValue(req, 'content-digest') ?? headerValue(req, 'digest');
  const m = digest ? /sha-256=:?([A-Za-z0-9+/=]{44}):?/i.exec(digest) : null;
  if (m) return Buffer.from(m[1]!, 'base64').toString('hex');
  for (const c of req.comments) {
    const cm = /^body[_-]?sha256\s*[:=]\s*([0-9a-fA-F]{64})\s*$/i.exec(c);
    if (cm) return cm[1]!.toLowerCase();
  }
  return undefined;
}

function declaredCanonical(req: RawRequest): string | undefined {
  for (const c of req.comments) {
    const m = /^canonical\s*[:=]\s*(".*")\s*$/i.exec(c);
    if (m) {
      try {
        const v: unknown = JSON.parse(m[1]!);
        if (typeof v === 'string') return v;
      } catch {
        /* not a JSON string: ignored */
      }
    }
  }
  return undefined;
}

/** Searches single wrong stages, then pairs, for one that reproduces the received signature. */
function search(
  fields: string[],
  secret: string,
  dims: Dimension[],
  targets: ReturnType<typeof decodeReceived>,
): { mistakes: DiagnosedMistake[]; signed: string } | null {
  if (targets.length === 0) return null;
  // A string valid in several encodings (base64 without + or / is also base64url): the first,
  // most plausible reading wins.
  const targetHex = new Map<string, (typeof targets)[number]>();
  for (const t of targets) if (!targetHex.has(t.digest.toString('hex'))) targetHex.set(t.digest.toString('hex'), t);
  let best: { count: number; mistakes: DiagnosedMistake[]; signed: string } | null = null;

  const tryCombo = (chosen: Array<{ dim: Dimension; v: Variant }>): void => {
    const f = [...fields];
    let join = '\n';
    let tail = '';
    let key: Buffer | string = secret;
    for (const { dim, v } of chosen) {
      if (dim.index < JOIN_INDEX) f[dim.index] = v.value;
      else if (dim.index === JOIN_INDEX) {
        if (v.ids[0] === 'canonical_crlf') join = '\r\n';
        else tail = '\n';
      } else key = v.ids[0] === 'secret_base64_decoded' ? Buffer.from(secret, 'base64') : secret + '\n';
    }
    const signed = f.join(join) + tail;
    const digest = createHmac('sha256', key).update(signed, 'utf8').digest('hex');
    const hit = targetHex.get(digest);
    if (!hit) return;
    const mistakes = chosen.flatMap(({ v }) =>
      v.ids.map((id, i) => describeMistake(id, i === 0 ? v.detail : undefined)),
    );
    if (hit.id !== 'base64') mistakes.push(describeMistake(hit.id, hit.detail));
    if (mistakes.length === 0) return;
    if (!best || mistakes.length < best.count) best = { count: mistakes.length, mistakes, signed };
  };

  tryCombo([]); // only the encoding differs
  for (const dim of dims) for (const v of dim.variants) tryCombo([{ dim, v }]);
  if (best) return best;
  for (let a = 0; a < dims.length; a++) {
    for (let b = a + 1; b < dims.length; b++) {
      for (const va of dims[a]!.variants) {
        if (va.ids.length > 1) continue;
        for (const vb of dims[b]!.variants) {
          if (vb.ids.length > 1) continue;
          tryCombo([
            { dim: dims[a]!, v: va },
            { dim: dims[b]!, v: vb },
          ]);
        }
      }
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------
// The phases of diagnose(). Each adds what it finds to the findings.

interface Findings {
  mistakes: DiagnosedMistake[];
  warnings: string[];
  /** a finding that makes the request fail whatever its signature (a missing header, a bad timestamp or query) */
  blocks: boolean;
}

type SignatureHeaders = Record<(typeof SIGNATURE_HEADERS)[number], string | undefined>;

/** Phase 1: the four headers; a missing one is a mistake. */
function headersPhase(req: RawRequest, f: Findings): SignatureHeaders {
  const h = Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, headerValue(req, name)])) as SignatureHeaders;
  const missing = SIGNATURE_HEADERS.filter((name) => h[name] === undefined);
  if (missing.length > 0) {
    f.mistakes.push({
      id: 'missing_headers',
      description: `the request has no ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}`,
      fix: KNOWN_MISTAKES.missing_headers.fix,
    });
    f.blocks = true;
  }
  return h;
}

/** Phase 2: the timestamp's shape (milliseconds, not digits), and its age when `now` is given. */
function timestampPhase(ts: string | undefined, now: number | undefined, f: Findings): void {
  if (ts === undefined) return;
  if (/^\d{13}$/.test(ts)) {
    f.mistakes.push(describeMistake('timestamp_milliseconds', `X-Timestamp ${ts} is in milliseconds, not seconds`));
    f.blocks = true;
  } else if (!/^\d{1,10}$/.test(ts)) {
    f.mistakes.push(
      describeMistake('timestamp_malformed', `X-Timestamp ${JSON.stringify(ts)} is not 1 to 10 decimal digits`),
    );
    f.blocks = true;
  } else if (now !== undefined) {
    const skew = now - Number(ts);
    if (Math.abs(skew) > TIMESTAMP_WINDOW) {
      f.warnings.push(
        `X-Timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'in the past' : 'in the future'} (the window is ${TIMESTAMP_WINDOW} s): the gateway answers timestamp_out_of_window. ` +
          'Expected for a request replayed from a log; otherwise sign right before sending and check the client clock.',
      );
    }
  }
}

/** Phase 3: the key the request names, against the key the secret belongs to. */
function keyIdPhase(sent: string | undefined, keyId: string | undefined, f: Findings): void {
  if (keyId !== undefined && sent !== undefined && sent !== keyId) {
    f.warnings.push(
      `the request's X-Api-Key is ${sent} but the secret used here belongs to key ${keyId}: choose the matching profile with --profile.`,
    );
  }
}

/** Phase 4: the canonical query, or the query as sent when it cannot be canonicalized (a mistake). */
function queryPhase(req: RawRequest, f: Findings): { canonQuery: string; ok: boolean } {
  try {
    return { canonQuery: canonicalQuery(req.query), ok: true };
  } catch {
    f.mistakes.push(describeMistake('query_invalid_encoding'));
    f.blocks = true;
    return { canonQuery: req.query, ok: false };
  }
}

interface Verified {
  /** the bodies to try: the body, and without its final newline when it was taken from the rest of a file */
  bodies: Buffer[];
  body: Buffer;
  fieldsFor: (body: Buffer) => string[];
  fields: string[];
  canonical: string;
  expected: string;
  received: string | null;
  matches: boolean;
  declaredHash: string | undefined;
}

/** Phase 5: the correct canonical string and signature, compared with the one received. */
function verifyPhase(req: RawRequest, h: SignatureHeaders, canonQuery: string, secret: string, f: Findings): Verified {
  const declaredHash = declaredBodyHash(req);
  const fieldsFor = (body: Buffer): string[] => [
    req.method.toUpperCase(),
    canonicalPath(req.path),
    canonQuery,
    h['X-Api-Key'] ?? '',
    h['X-Timestamp'] ?? '',
    h['X-Nonce'] ?? '',
    bodySha256(body),
  ];
  // A body taken from the rest of a file (no Content-Length) may end with a newline an editor
  // added: accept the signature over the body without it, and say so.
  const bodies: Buffer[] = [req.body];
  if (req.bodySource === 'rest' && req.body[req.body.length - 1] === 0x0a) {
    const cut = req.body.length >= 2 && req.body[req.body.length - 2] === 0x0d ? 2 : 1;
    bodies.push(req.body.subarray(0, req.body.length - cut));
  }
  const received = h['X-Signature'] ?? null;
  let body = bodies[0]!;
  let fields = fieldsFor(body);
  let expected = signCanonical(secret, fields.join('\n'));
  let matches = received !== null && safeEqual(expected, received);
  if (!matches && received !== null && bodies.length > 1) {
    const altFields = fieldsFor(bodies[1]!);
    const altExpected = signCanonical(secret, altFields.join('\n'));
    if (safeEqual(altExpected, received)) {
      [body, fields, expected, matches] = [bodies[1]!, altFields, altExpected, true];
      f.warnings.push(
        'the signature covers the body without the final newline of the file; assuming an editor added it (add a Content-Length header to make the body exact).',
      );
    }
  }
  if (declaredHash !== undefined && declaredHash !== bodySha256(body)) {
    f.warnings.push(
      `the body hash the client declared (${declaredHash}) does not match the body in the request (${bodySha256(body)}): the body changed after it was hashed.`,
    );
  }
  return { bodies, body, fieldsFor, fields, canonical: fields.join('\n'), expected, received, matches, declaredHash };
}

/** Phase 6: the search for the wrong stages that reproduce the received signature. */
function searchPhase(
  req: RawRequest,
  v: Verified,
  secret: string,
  f: Findings,
  reserialize: boolean,
): { found: boolean; checked: MistakeId[]; signed?: string } {
  const targets = decodeReceived(v.received!);
  let best: { mistakes: DiagnosedMistake[]; signed: string } | null = null;
  let checked: MistakeId[] = [];
  for (const b of v.bodies) {
    const fields = b === v.body ? v.fields : v.fieldsFor(b);
    const dims = buildDimensions({ req, fields, secret, body: b, declaredHash: v.declaredHash, reserialize });
    checked = [...new Set([...checked, ...checkedIds(dims)])];
    const m = search(fields, secret, dims, targets);
    if (m && (!best || m.mistakes.length < best.mistakes.length)) best = m;
  }
  if (!best) return { found: false, checked };
  f.mistakes.push(...best.mistakes.filter((m) => !f.mistakes.some((x) => x.id === m.id)));
  return { found: true, checked, signed: best.signed };
}

/** Phase 7: the client's own canonical string, when a comment of the request gives it: the fields that differ. */
function declaredCanonicalPhase(req: RawRequest, v: Verified, secret: string, f: Findings): boolean {
  const theirs = declaredCanonical(req);
  if (theirs === undefined) return false;
  const ours = v.canonical.split('\n');
  const diffs = theirs
    .split('\n')
    .map((value, i) => ({ value, i }))
    .filter(({ value, i }) => value !== ours[i])
    .map(
      ({ value, i }) =>
        `field ${i + 1} ${CANONICAL_FIELD_NAMES[i] ?? 'EXTRA'} is ${JSON.stringify(value)} instead of ${JSON.stringify(ours[i] ?? '')}`,
    );
  if (theirs.split('\n').length !== 7) diffs.unshift(`it has ${theirs.split('\n').length} fields instead of 7`);
  if (diffs.length === 0) return false;
  const reproduces = signCanonical(secret, theirs) === v.received;
  f.mistakes.push(
    describeMistake(
      'canonical_differs',
      `the client's canonical string (from the comment) differs: ${diffs.join('; ')}${reproduces ? '' : ' (and it does not reproduce the signature either: check the secret)'}`,
    ),
  );
  return reproduces;
}

export function diagnose(input: DiagnoseInput): Diagnosis {
  const req =
    typeof input.request === 'string' || input.request instanceof Uint8Array
      ? parseRawRequest(input.request)
      : input.request;
  const f: Findings = { mistakes: [], warnings: [...req.notes], blocks: false };
  const h = headersPhase(req, f);
  timestampPhase(h['X-Timestamp'], input.now, f);
  keyIdPhase(h['X-Api-Key'], input.keyId, f);
  const query = queryPhase(req, f);
  const v = verifyPhase(req, h, query.canonQuery, input.secret, f);
  let found = false;
  let checked: MistakeId[] = [];
  let signed: string | undefined;
  if (!v.matches && v.received !== null && query.ok) {
    ({ found, checked, signed } = searchPhase(req, v, input.secret, f, input.reserializeBody ?? true));
    if (!found) found = declaredCanonicalPhase(req, v, input.secret, f);
  }
  const valid = v.matches && !f.blocks;
  const explained = v.matches || found || v.received === null;
  return {
    valid,
    expected_signature: v.expected,
    received_signature: v.received,
    mistakes: f.mistakes,
    warnings: f.warnings,
    found: valid || (explained && f.mistakes.length > 0),
    checked,
    canonical: v.canonical,
    ...(signed !== undefined ? { client_canonical: signed } : {}),
    body_sha256: v.fields[6]!,
    request: {
      method: req.method,
      path: req.path,
      query: req.query,
      body_bytes: v.body.length,
      key_id: h['X-Api-Key'] ?? null,
    },
  };
}

/** A request as a server received it (node's lowercased headers), for diagnoseReceived. */
export interface ReceivedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** The request as a server received it, in the shape diagnose reads (its body exact). */
export function rawRequestOf(r: ReceivedRequest): RawRequest {
  const headers = Object.entries(r.headers).flatMap(([name, value]) =>
    value === undefined ? [] : [{ name, value: Array.isArray(value) ? value.join(', ') : value }],
  );
  return {
    method: r.method,
    target: r.query ? `${r.path}?${r.query}` : r.path,
    path: r.path,
    query: r.query,
    httpVersion: '1.1',
    headers,
    body: r.body,
    bodySource: 'content-length',
    comments: [],
    format: 'plain',
    notes: [],
  };
}

/** diagnose() on a request a server received (the mock's request log): same phases, same ids. */
export function diagnoseReceived(
  r: ReceivedRequest,
  secret: string,
  options: { reserializeBody?: boolean } = {},
): Diagnosis {
  return diagnose({ request: rawRequestOf(r), secret, reserializeBody: options.reserializeBody });
}
