// Never a secret in the request log (issue 29): every secret the mock holds (each key's secret,
// a rolled one in its overlap, each merchant's webhook secret, the control token), in every form
// a client or a user might send or paste it (as is, percent-encoded, hex, base64), is replaced
// wherever it appears in a record, as a substring too. The secrets are learnt as they are made
// and never forgotten (a reset does not make an old secret public); the matcher is built once
// per change, in chunks of at most CHUNK forms: V8 compiles a regular expression of a few
// hundred literal alternatives to native code, a bigger one falls back to a 50x slower
// interpreter. A text shorter than the shortest form is not scanned at all.
import type { MockState } from './state.js';

export const NOT_RECORDED = '(a secret: not recorded)';
const CHUNK = 150;
/** A form shorter than this is too short to be told from ordinary text (a secret is 32 characters or more). */
const MIN_FORM = 16;
/** the start of a form a truncation leaves that is still removed */
const HEAD = 8;
const NOTHING = /(?!)/g;

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
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
  private readonly forms = new Set<string>();
  /** the forms of each chunk, and its matcher; only the last chunk grows (and is rebuilt) */
  private readonly chunks: Array<{ forms: string[]; re: RegExp }> = [];
  /** the forms by their first HEAD characters (the tail check of a cut text) */
  private readonly byHead = new Map<string, string[]>();
  private longest = 0;

  /** Learns secrets (a key made or rolled, a merchant made, a state loaded); known ones cost a lookup. */
  add(secrets: Iterable<string | null | undefined>): void {
    const grown = new Set<{ forms: string[]; re: RegExp }>();
    for (const secret of secrets) {
      if (!secret || this.known.has(secret)) continue;
      this.known.add(secret);
      for (const form of secretForms(secret)) {
        if (this.forms.has(form)) continue;
        this.forms.add(form);
        this.longest = Math.max(this.longest, form.length);
        const head = form.slice(0, HEAD);
        this.byHead.set(head, [...(this.byHead.get(head) ?? []), form]);
        let last = this.chunks.at(-1);
        if (!last || last.forms.length >= CHUNK) this.chunks.push((last = { forms: [], re: NOTHING }));
        last.forms.push(form);
        grown.add(last);
      }
    }
    for (const c of grown) c.re = matcherOf(c.forms);
  }

  /** The text with every form of every secret replaced by NOT_RECORDED; the same string when there is none. */
  redact(text: string): string {
    if (text.length < MIN_FORM) return text;
    let out = text;
    for (const { re } of this.chunks) if (out.search(re) !== -1) out = out.replace(re, NOT_RECORDED);
    return out;
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
    return (out.some(([k, v], i) => k !== entries[i]![0] || v !== entries[i]![1]) ? Object.fromEntries(out) : value) as T;
  }

  /** A text cut at a size: redacted, and the start of a secret's form that the cut left at its end (HEAD characters or more) removed. */
  redactCut(text: string): string {
    const out = this.redact(text);
    for (let k = Math.min(this.longest - 1, out.length); k >= HEAD; k--) {
      const end = out.slice(-k);
      if (this.byHead.get(end.slice(0, HEAD))?.some((f) => f.startsWith(end))) return `${out.slice(0, -k)}${NOT_RECORDED}`;
    }
    return out;
  }
}

function matcherOf(forms: string[]): RegExp {
  // longest first: a form that is the start of another (the unpadded one) is tried after it
  return new RegExp([...forms].sort((a, b) => b.length - a.length).map(escapeRe).join('|'), 'g');
}
