// The simplest jq programs, paths (`.`, `.id`, `.data[].id`, `.data[0].email`, `.[]`), run in
// JavaScript without starting jq (issue 38: jq's WebAssembly costs more to start than the whole
// `cards get --json`, and Node keeps no compiled WebAssembly between runs). Only where the answer
// is certainly jq's own, byte for byte, as `jq -r -c` prints it: any other case (an error, a
// number jq would print in another form, an object whose keys JavaScript reorders, a string jq
// would escape or replace) says so (undefined), and jq itself answers. test/output/jq-paths.test.ts
// holds both to the same output on generated documents and paths.

export type PathStep = { key: string } | { index: number } | { each: true };

/** jq's keywords: `.if` and the like are left to jq (its grammar for them changed across versions). */
const KEYWORDS = new Set(
  'and or not if then elif else end as def reduce foreach try catch label import include __loc__ true false null'.split(
    ' ',
  ),
);
const IDENT = '[A-Za-z_][A-Za-z0-9_]*';
const WHOLE = new RegExp(`^\\.(?:${IDENT})?(?:\\[\\]|\\[-?\\d{1,9}\\]|\\.${IDENT})*$`);
const STEP = new RegExp(`\\[\\]|\\[(-?\\d+)\\]|\\.?(${IDENT})`, 'g');

/** The steps of a path expression, or undefined when the expression is anything else (jq runs it). */
export function parsePath(expr: string): PathStep[] | undefined {
  const e = expr.trim();
  if (!WHOLE.test(e)) return undefined;
  const steps: PathStep[] = [];
  for (const m of e.slice(1).matchAll(STEP)) {
    if (m[0] === '[]') steps.push({ each: true });
    else if (m[1] !== undefined) steps.push({ index: Number(m[1]) });
    else if (KEYWORDS.has(m[2]!)) return undefined;
    else steps.push({ key: m[2]! });
  }
  return steps;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The results of the path on one value, or undefined where jq would fail (it says how). */
function apply(steps: readonly PathStep[], value: unknown): unknown[] | undefined {
  let current = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('each' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v) && plainKeys(v)) next.push(...Object.values(v));
        else return undefined;
      } else if (v === null) next.push(null);
      else if ('key' in step) {
        if (!isObject(v)) return undefined;
        next.push(Object.hasOwn(v, step.key) ? v[step.key] : null);
      } else {
        if (!Array.isArray(v)) return undefined;
        const i = step.index < 0 ? v.length + step.index : step.index;
        next.push(i >= 0 && i < v.length ? v[i] : null);
      }
    }
    current = next;
  }
  return current;
}

/** Printable ASCII and the BMP outside controls and surrogates: jq prints these as JavaScript does. */
const PLAIN_STRING = /^[\u0020-\u007e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufffd]*$/;
/** A key JavaScript keeps in insertion order (not an array index, which it moves first). */
const plainKey = (k: string): boolean => PLAIN_STRING.test(k) && !/^(?:0|[1-9]\d*)$/.test(k);
const plainKeys = (o: Record<string, unknown>): boolean => Object.keys(o).every(plainKey);

/** Whether JSON.stringify prints the value exactly as `jq -c` does. */
function plain(v: unknown): boolean {
  if (v === null || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !/[eE]/.test(String(v)) && !Object.is(v, -0);
  if (typeof v === 'string') return PLAIN_STRING.test(v);
  if (Array.isArray(v)) return v.every(plain);
  if (isObject(v)) return Object.entries(v).every(([k, x]) => plainKey(k) && plain(x));
  return false;
}

/** Every JSON value of the text: one document, or one per line. */
function values(text: string): unknown[] | undefined {
  try {
    return [JSON.parse(text)];
  } catch {
    try {
      return text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as unknown);
    } catch {
      return undefined;
    }
  }
}

/** What `jq -r -c PATH` prints for the text, or undefined when jq itself must answer. */
export function runPath(steps: readonly PathStep[], text: string): string | undefined {
  const inputs = values(text);
  if (!inputs) return undefined;
  let out = '';
  for (const input of inputs) {
    const results = apply(steps, input);
    if (!results) return undefined;
    for (const r of results) {
      if (!plain(r)) return undefined;
      out += `${typeof r === 'string' ? r : JSON.stringify(r)}\n`;
    }
  }
  return out;
}
