// One word of a command line shown for copying (the `curl` of `sign`, the command that resumes an
// interrupted one, the demo's steps): quoted so a POSIX shell reads it back as the same bytes, and
// safe on a terminal. A word holding a control character (ESC, BEL, C1, a bidi override) is written
// in ANSI-C quoting, `$'...'` with each such character as an escape (bash, zsh, ksh, and POSIX
// since 2024): printed in single quotes it would move the cursor or retitle the terminal of the
// person reading it, and the line they copied would differ from the one shown.
// Imports nothing: the cli and the demo use it.

const BARE = /^[A-Za-z0-9_\-./:=@%+,]+$/;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

export function shellQuote(word: string): string {
  if (word !== '' && BARE.test(word)) return word;
  if (!CONTROL.test(word)) return `'${word.replaceAll("'", `'\\''`)}'`;
  let quoted = '';
  for (const ch of word) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'") quoted += `\\${ch}`;
    else if (ch === '\n') quoted += '\\n';
    else if (ch === '\t') quoted += '\\t';
    else if (!CONTROL.test(ch)) quoted += ch;
    else if (cp < 0x80) quoted += `\\x${cp.toString(16).padStart(2, '0')}`;
    else quoted += `\\u${cp.toString(16).padStart(4, '0')}`; // one character, not the byte \xHH would give
  }
  return `$'${quoted}'`;
}
