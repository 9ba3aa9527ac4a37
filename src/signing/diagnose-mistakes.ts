// The mistakes `sign diagnose` and the mock's request log can name: one table, as data (ids are
// stable: tests, `sign diagnose --json` and the mock's diagnoses use them).
export interface MistakeInfo {
  description: string;
  fix: string;
}

/** Every mistake diagnose can name. Tests and `sign diagnose` list them from here. */
export const KNOWN_MISTAKES = {
  method_not_uppercased: {
    description: 'the method was signed as written, not uppercased',
    fix: 'uppercase the method in the canonical string (GET, POST, ...)',
  },
  trailing_slash_kept: {
    description: 'the path was signed with its trailing slash',
    fix: 'remove one trailing "/" from the path before signing (or do not send it)',
  },
  path_without_prefix: {
    description: 'the path was signed without the /api/v1 prefix',
    fix: 'sign the full request path including /api/v1',
  },
  path_includes_query: {
    description: 'the PATH field included the ?query',
    fix: 'put only the path in field 2 and the canonical query in field 3',
  },
  query_not_sorted: {
    description: 'the query parameters were signed in the order they were sent, not sorted',
    fix: 'sort the parameters by key (UTF-8 byte order) and write repeated keys as key[]=value with sorted values',
  },
  query_space_as_percent20: {
    description: 'a space in the query was signed as %20 instead of +',
    fix: 'encode a space as "+" in the canonical query',
  },
  query_brackets_encoded: {
    description: 'list keys were signed as key%5B%5D= instead of key[]=',
    fix: 'write the [] of list keys literally in the canonical query',
  },
  query_unreserved_not_encoded: {
    description: "the query was encoded like encodeURIComponent/RFC 3986 (~ * ! ' ( ) left as is)",
    fix: 'percent-encode every byte except A-Z a-z 0-9 - _ . (so ~ is %7E and * is %2A)',
  },
  query_lowercase_hex: {
    description: 'percent escapes in the query were signed with lowercase hex',
    fix: 'use uppercase hex in percent escapes (%2F, not %2f)',
  },
  query_as_sent: {
    description: 'the query string was signed exactly as sent instead of canonicalized',
    fix: 'decode the query, sort it and re-encode it as SIGNING.md says',
  },
  query_omitted: {
    description: 'the query string was left out of the canonical string',
    fix: 'put the canonical query in field 3 (empty only when the request has no query)',
  },
  timestamp_milliseconds: {
    description: 'the timestamp was in milliseconds, not seconds',
    fix: 'use Unix seconds for X-Timestamp and sign the same value you send (Math.floor(Date.now() / 1000))',
  },
  timestamp_malformed: {
    description: 'X-Timestamp is not 1 to 10 decimal digits',
    fix: 'send X-Timestamp as decimal Unix seconds',
  },
  body_pretty_printed: {
    description: 'the body was signed pretty-printed but sent compact',
    fix: 'sign the exact bytes you send: serialize the body once and use that string for both',
  },
  body_reserialized: {
    description: 'the body was signed with a different JSON serialization than the bytes sent',
    fix: 'sign the exact bytes you send: serialize the body once and use that string for both',
  },
  body_keys_reordered: {
    description: 'the body was signed with its keys in a different order than sent',
    fix: 'sign the exact bytes you send: serialize the body once and use that string for both',
  },
  body_trailing_newline_added: {
    description: 'the body was signed with a trailing newline that was not sent',
    fix: 'hash exactly the bytes you send (drop the newline, or send it too)',
  },
  body_trailing_newline_removed: {
    description: 'the body was sent with a trailing newline that was not signed',
    fix: 'hash exactly the bytes you send (a file read with a final newline, or a tool that appends one)',
  },
  body_not_signed: {
    description: 'the hash of an empty body was signed although the request has a body',
    fix: 'compute BODY_SHA256 over the raw body bytes after the body is set',
  },
  body_hash_encoding: {
    description: 'the body hash was not written as lowercase hex',
    fix: 'write BODY_SHA256 as lowercase hex',
  },
  body_changed_after_signing: {
    description: 'the client signed the body hash it declared, but the body sent has different bytes',
    fix: 'hash and send the same bytes: do not re-serialize or re-encode the body after signing',
  },
  secret_base64_decoded: {
    description: 'the secret was base64-decoded before use as the HMAC key',
    fix: 'use the secret text exactly as shown (its UTF-8 bytes) as the HMAC key, without base64-decoding it',
  },
  secret_trailing_newline: {
    description: 'the HMAC key had a trailing newline (a secret read from a file or `echo`)',
    fix: 'strip the newline from the secret before using it',
  },
  signature_hex: {
    description: 'the signature was encoded as hex instead of base64',
    fix: 'base64-encode the raw HMAC digest (not its hex string)',
  },
  signature_base64url: {
    description: 'the signature was encoded as url-safe base64 (- and _)',
    fix: 'use standard base64 (+ and /, with = padding)',
  },
  signature_base64url_unpadded: {
    description: 'the signature was encoded as url-safe base64 without padding',
    fix: 'use standard base64 (+ and /, with = padding)',
  },
  signature_base64_unpadded: {
    description: 'the signature was base64 without its = padding',
    fix: 'keep the = padding of the base64 signature',
  },
  canonical_trailing_newline: {
    description: 'the canonical string was signed with a trailing newline',
    fix: 'join the seven fields with "\\n" and add no newline at the end',
  },
  canonical_crlf: {
    description: 'the canonical fields were joined with CRLF',
    fix: 'join the seven fields with a single "\\n"',
  },
  missing_headers: {
    description: 'a signature header is missing',
    fix: 'send all four headers: X-Api-Key, X-Timestamp, X-Nonce, X-Signature',
  },
  query_invalid_encoding: {
    description: 'the query does not percent-decode to valid UTF-8, so it cannot be canonicalized',
    fix: 'percent-encode query values as UTF-8 bytes',
  },
  signed_with_other_secret: {
    description: 'the request was signed with the secret of another profile than the key it names',
    fix: 'sign with the secret of the key named in X-Api-Key, or send the key id that goes with the secret used',
  },
  canonical_differs: {
    description: 'the client signed a different canonical string',
    fix: 'build the canonical string as SIGNING.md says',
  },
} as const satisfies Record<string, MistakeInfo>;

export type MistakeId = keyof typeof KNOWN_MISTAKES;

export interface DiagnosedMistake {
  id: MistakeId;
  description: string;
  fix: string;
}

/** A mistake as found: its table entry, with a more precise description when the finder has one. */
export function describeMistake(id: MistakeId, detail?: string): DiagnosedMistake {
  const info: MistakeInfo = KNOWN_MISTAKES[id];
  return { id, description: detail ?? info.description, fix: info.fix };
}
