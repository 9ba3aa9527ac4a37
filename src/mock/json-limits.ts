// Limits on the shape of a JSON body before it is parsed and kept: a control call may store
// what it is given (an event's `data`), and JSON.stringify, structuredClone and the state file
// recurse, so a body nested a few thousand levels deep overflowed the stack when the event was
// sent, listed or saved, and killed the mock. Pure: bytes in, a number out.

/**
 * The deepest nesting of arrays and objects in a JSON text (brackets inside strings do not
 * count), scanning no further than `stopAbove`: the answer is then `stopAbove + 1`.
 */
export function jsonNestingDepth(raw: Uint8Array, stopAbove = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}
