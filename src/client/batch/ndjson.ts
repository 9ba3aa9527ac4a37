// One NDJSON line of a batch: a JSON object whose members become the row's fields. A member
// given twice (`{"amount":5,"amount":7}`, JSON.parse keeps the last) is refused, and each
// number keeps its literal (`5.0`, `1e3`), so an amount follows the rules of --amount.

/** A JSON number as written: the planner reads it as --amount reads its text. */
export class JsonNumber {
  constructor(readonly literal: string) {}
}

export type NdjsonFields = { fields: Record<string, unknown> } | { error: string };

const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[{}[\]:,]|true|false|null/g;

/** The top-level members' names (as written, decoded) and the literal of those whose value is a number. For a text JSON.parse accepted. */
function members(text: string): Array<{ name: string; number?: string }> {
  const found: Array<{ name: string; number?: string }> = [];
  let depth = 0;
  let lastString: string | null = null;
  let expectValue = false;
  for (const [token] of text.matchAll(TOKENS)) {
    const c = token[0]!;
    if (expectValue) {
      expectValue = false;
      if (c === '-' || (c >= '0' && c <= '9')) found.at(-1)!.number = token;
    }
    if (c === '"') lastString = token;
    else if (c === ':') {
      if (depth === 1 && lastString !== null) {
        found.push({ name: JSON.parse(lastString) as string });
        expectValue = true;
      }
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return found;
}

/** The fields of one line (names trimmed and lower-cased), or why the line is not a row. */
export function ndjsonFields(text: string, example: string): NdjsonFields {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `not valid JSON (${(err as Error).message}).` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { error: `each line must be one JSON object, such as ${example}.` };
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>; // "__proto__" is a name like any other
  const seen = new Map<string, string>();
  for (const m of members(text)) {
    const name = m.name.trim().toLowerCase();
    const earlier = seen.get(name);
    if (earlier !== undefined)
      return {
        error: `the field "${m.name}" is given twice${earlier === m.name ? '' : ` (also as "${earlier}")`}: which one is meant cannot be known; give it once.`,
      };
    seen.set(name, m.name);
    const v = (value as Record<string, unknown>)[m.name];
    fields[name] = m.number !== undefined && typeof v === 'number' ? new JsonNumber(m.number) : v;
  }
  return { fields };
}
