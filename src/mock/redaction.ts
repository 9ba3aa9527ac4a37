// Never a secret in the request log (issue 29): every secret the mock holds (each key's secret,
// a rolled one in its overlap, each merchant's webhook secret, the control token), in every form
// a client or a user might send or paste it (as is, percent-encoded, hex, base64), is replaced
// wherever it appears in a record, as a substring too. The secrets are learnt as they are made
// and never forgotten (a reset does not make an old secret public). The matcher costs the same
// with 8 secrets or 3,000 (a suite that makes a merchant per test): one pass over the text with
// a rolling hash of its last MIN_FORM characters, a table lookup per character, and a comparison
// only where the hash is the one of a form's first MIN_FORM characters. (A regular expression of
// every form, tried first, took 150 ms on a 16 KiB body with 3,000 secrets: past a few hundred
// alternatives V8 interprets it.) A text shorter than the shortest form is not scanned at all.
import type { MockState } from './state.js';

export const NOT_RECORDED = '(a secret: not recorded)';
/** A form shorter than this is too short to be told from ordinary text (a secret is 32 characters or more). */
const MIN_FORM = 16;
/** the start of a form a truncation leaves that is still removed */
const HEAD = 8;
/** the rolling hash: h = sum of c[i] * BASE^(MIN_FORM - 1 - i), modulo 2^32 */
const BASE = 31;
const TOP = Array.from({ length: MIN_FORM - 1 }).reduce<number>((p) => Math.imul(p, BASE), 1); // BASE^(MIN_FORM - 1)
const FILTER_BITS = 16;
const slot = (h: number): number => (h ^ (h >>> FILTER_BITS)) & ((1 << FILTER_BITS) - 1);

function hashAt(text: string, start: number): number {
  let h = 0;
  for (let k = start; k < start + MIN_FORM; k++) h = (Math.imul(h, BASE) + text.charCodeAt(k)) | 0;
  return h;
}
const hexCases = (hex: string): string[] => [hex, hex.toUpperCase()];
const unpadded = (b64: string): string => b64.replace(/=+$/, '');

/** The forms of one secret: as is, percent-encoded (either hex case, or '/' kept), JSON-escaped, hex, base64. */
export function secretForms(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const asText = Buffer.from(secret, 'utf8');
  const forms = [
    secret,
    unpadded(secret),
    encoded,
    encoded.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    secret.replace(/[+=]/g, (c) => encodeURIComponent(c)), // Python's quote(): '/' kept
    secret.replace(/\//g, '\\/'), // a JSON encoder that escapes slashes
    JSON.stringify(secret).slice(1, -1), // inside a JSON string (a secret with quotes or backslashes)
    ...hexCases(asText.toString('hex')),
    asText.toString('base64'),
    unpadded(asText.toString('base64')),
    unpadded(asText.toString('base64url')),
  ];
  const bytes = Buffer.from(secret, 'base64');
  if (bytes.length >= 16 && bytes.toString('base64') === secret) {
    forms.push(...hexCases(bytes.toString('hex')), unpadded(bytes.toString('base64url')));
  }
  return forms.filter((f) => f.length >= MIN_FORM);
}

/** Every secret a state holds: each key's secret and previous one, each merchant's webhook secret. */
export function secretsOf(state: MockState): string[] {
  const out: string[] = [];
  for (const k of Object.values(state.keys)) {
    out.push(k.secret);
    if (k.previous_secret) out.push(k.previous_secret);
  }
  for (const m of Object.values(state.merchants)) out.push(m.webhook_secret);
  return out;
}

export class SecretRedactor {
  private readonly known = new Set<string>();
  /** the forms by the hash of their first MIN_FORM characters, longest first */
  private readonly byHash = new Map<number, string[]>();
  /** 1 where some form's hash falls: most characters are passed over with this one lookup */
  private readonly filter = new Uint8Array(1 << FILTER_BITS);
  /** the forms by their first HEAD characters (the tail check of a cut text) */
  private readonly byHead = new Map<string, string[]>();
  private longest = 0;

  /** Learns secrets (a key made or rolled, a merchant made, a state loaded); known ones cost a lookup. */
  add(secrets: Iterable<string | null | undefined>): void {
    for (const secret of secrets) {
      if (!secret || this.known.has(secret)) continue;
      this.known.add(secret);
      for (const form of secretForms(secret)) {
        const h = hashAt(form, 0);
        const bucket = this.byHash.get(h) ?? [];
        if (bucket.includes(form)) continue;
        this.byHash.set(
          h,
          [...bucket, form].sort((a, b) => b.length - a.length),
        );
        this.filter[slot(h)] = 1;
        this.longest = Math.max(this.longest, form.length);
        const head = form.slice(0, HEAD);
        this.byHead.set(head, [...(this.byHead.get(head) ?? []), form]);
      }
    }
  }

  /** The text with every form of every secret replaced by NOT_RECORDED; the same string when there is none. */
  redact(text: string): string {
    if (text.length < MIN_FORM || this.byHash.size === 0) return text;
    let out = '';
    let copied = 0; // text before this index is in `out` (or replaced)
    let h = hashAt(text, 0);
    for (let i = 0; ; i++) {
      if (i >= copied && this.filter[slot(h)] === 1) {
        const form = this.byHash.get(h)?.find((f) => text.startsWith(f, i));
        if (form) {
          out += text.slice(copied, i) + NOT_RECORDED;
          copied = i + form.length;
        }
      }
      if (i + MIN_FORM >= text.length) break;
      h = (Math.imul(h - Math.imul(text.charCodeAt(i), TOP), BASE) + text.charCodeAt(i + MIN_FORM)) | 0;
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  /** A JSON-like value (a diagnosis) with every string in it redacted, keys included; the same value when none held a secret. */
  redactValue<T>(value: T, depth = 0): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (value === null || typeof value !== 'object') return value;
    if (depth > 16) return '(nested too deep: not shown)' as T;
    if (Array.isArray(value)) {
      const out = value.map((v) => this.redactValue(v, depth + 1));
      return (out.some((v, i) => v !== value[i]) ? out : value) as T;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    const out = entries.map(([k, v]) => [this.redact(k), this.redactValue(v, depth + 1)] as const);
    return (
      out.some(([k, v], i) => k !== entries[i]![0] || v !== entries[i]![1]) ? Object.fromEntries(out) : value
    ) as T;
  }

  /** A text cut at a size: redacted, and the start of a secret's form that the cut left at its end (HEAD characters or more) removed. */
  redactCut(text: string): string {
    const out = this.redact(text);
    for (let k = Math.min(this.longest - 1, out.length); k >= HEAD; k--) {
      const end = out.slice(-k);
      if (this.byHead.get(end.slice(0, HEAD))?.some((f) => f.startsWith(end)))
        return `${out.slice(0, -k)}${NOT_RECORDED}`;
    }
    return out;
  }
}
