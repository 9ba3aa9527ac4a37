// Anything a server sends is made safe before it reaches a terminal (issue 22, item 5): C0 and C1
// control characters (NUL, BEL, ESC, which starts colour and cursor sequences), DEL and the bidi
// overrides are written as visible escapes. JSON output never goes through this: it stays exact.

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

/** One line or a block of lines: newlines and tabs kept, every other control character escaped. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const cp = ch.codePointAt(0)!;
    return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16).toUpperCase()}}`;
  });
}

/** One table cell or key-value value: as terminalSafe, and newlines, carriage returns and tabs escaped too (a value never makes a fake row). */
export function terminalSafeLine(text: string): string {
  return terminalSafe(text).replace(/[\n\r\t]/g, (ch) => (ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : '\\t'));
}

/**
 * JSON text shown to a person: JSON.stringify already escapes C0 characters; the other unsafe
 * ones (DEL, C1, bidi overrides) can only be inside strings, and become \u escapes of the same
 * value, so the text is still the same JSON.
 */
export function terminalSafeJson(text: string): string {
  return text.replace(UNSAFE, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
