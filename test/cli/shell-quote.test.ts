// src/shell-quote.ts: a word shown for copying (sign's curl line, the command that resumes an
// interrupted one, the demo's steps) reads back in a real shell as the same bytes, and shows no
// control character on a terminal (ANSI-C quoting, $'...', where it holds one).
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/shell-quote.js';

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** What bash reads each quoted word back as (NUL cannot be in an argument). */
function readBack(words: string[]): string[] {
  const script = words.map((w) => `printf '%s\\0' ${shellQuote(w)}`).join('\n');
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stdout.split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it('bare, single-quoted or ANSI-C quoted as needed', () => {
    expect(shellQuote('cards')).toBe('cards');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('a\u001b[2Jb\u202e')).toBe("$'a\\x1b[2Jb\\u202e'");
  });

  it('any word reads back in bash as the same text, and its quoted form holds no control character', () => {
    const chars = fc.constantFrom(
      'a',
      ' ',
      "'",
      '"',
      '\\',
      '$',
      '`',
      '\n',
      '\t',
      '\u001b',
      '\u0007',
      '\u009b',
      '\u202e',
      'é',
      '!',
      '*',
    );
    const words = fc.sample(
      fc.array(chars, { maxLength: 12 }).map((a) => a.join('')),
      { numRuns: 300, seed: 30 },
    );
    expect(readBack(words)).toEqual(words);
    for (const w of words) expect(shellQuote(w)).not.toMatch(UNSAFE);
  });
});
