// Number literals of a JSON text that a JavaScript number cannot hold exactly. Shared by the
// client (which refuses to re-serialize such a body) and the mock (which refuses such a body).
// Imports nothing else of the project.

/** A number literal as sign, significant digits and exponent, so `1.0`, `1e0` and `1` compare equal. */
function decimalKey(literal: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return literal;
  const frac = m[3] ?? '';
  let digits = (m[2]! + frac).replace(/^0+/, '');
  if (digits === '') return '0';
  let exp = Number(m[4] ?? 0) - frac.length;
  const kept = digits.replace(/0+$/, '');
  exp += digits.length - kept.length;
  digits = kept;
  return `${m[1]}${digits}e${exp}`;
}

/** The value a literal is read as, when that differs from the literal; null when it is exact. */
function inexact(literal: string): string | null {
  const becomes = JSON.stringify(Number(literal)); // "null" for a number out of range
  return decimalKey(becomes) === decimalKey(literal) ? null : becomes;
}

const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * The number literals of a JSON text that a JavaScript number cannot hold exactly (an integer
 * beyond 2^53, too many decimals, out of range), each with the value it would be read as.
 * Re-serializing such a body would silently send a different amount.
 */
export function inexactNumbers(jsonText: string): Array<{ literal: string; becomes: string }> {
  const found: Array<{ literal: string; becomes: string }> = [];
  // strings first, so digits inside them are skipped; outside strings only numbers hold digits
  for (const [token] of jsonText.matchAll(TOKENS)) {
    if (token.startsWith('"')) continue;
    const becomes = inexact(token);
    if (becomes !== null) found.push({ literal: token, becomes });
  }
  return found;
}

/**
 * Like inexactNumbers, with the top-level member each literal sits in (`field`; null for a
 * literal that is not inside a member of a top-level object). For a text that JSON.parse accepts.
 */
export function inexactNumberFields(
  jsonText: string,
): Array<{ field: string | null; literal: string; becomes: string }> {
  const found: Array<{ field: string | null; literal: string; becomes: string }> = [];
  let depth = 0;
  let field: string | null = null;
  let lastString: string | null = null;
  for (const [token] of jsonText.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[{}[\]:,]/g)) {
    const c = token[0];
    if (c === '"') {
      lastString = token;
    } else if (c === ':') {
      // a key at depth 1 names the top-level member until the next ',' or '}' at that depth
      if (depth === 1 && lastString !== null) field = JSON.parse(lastString) as string;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) field = null;
    } else if (c === ',') {
      if (depth === 1) field = null;
    } else {
      const becomes = inexact(token);
      if (becomes !== null) found.push({ field: depth >= 1 ? field : null, literal: token, becomes });
    }
  }
  return found;
}
