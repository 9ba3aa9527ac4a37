// What --verbose shows must make a bad canonical string obvious at a glance.
import { describe, expect, it } from 'vitest';
import { formatCanonical } from '../../src/client/verbose.js';
import { visible } from '../../src/signing/visible.js';

describe('visible', () => {
  it('shows line feeds, tabs, carriage returns, control and zero-width characters, and trailing spaces', () => {
    expect(visible('a\nb\tc\rd')).toBe('a\\nb\\tc\\rd');
    expect(visible('key  ')).toBe('key␠␠');
    expect(visible('x\u200by\u00a0z\ufeff')).toBe('x\\u{200B}y\\u{A0}z\\u{FEFF}');
    expect(visible('\u0001')).toBe('\\x01');
    expect(visible('a b')).toBe('a b');
  });

  it('prints the canonical string one numbered field per line, empty fields included', () => {
    const lines = formatCanonical(['GET', '/api/v1/cards', '', 'KEY ', '1700000000', 'n\t', 'e3b0'].join('\n'));
    expect(lines).toHaveLength(7);
    expect(lines[2]).toBe('  3 QUERY_STRING ||');
    expect(lines[3]).toBe('  4 X-Api-Key    |KEY␠|');
    expect(lines[5]).toBe('  6 X-Nonce      |n\\t|');
  });
});
