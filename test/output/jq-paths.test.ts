// --jq's path programs run without jq (src/output/jq-paths.ts) must print exactly what jq prints
// (`jq -r -c`, the real jq-web), or leave the input to jq: generated documents as cardctl prints
// them (JSON.stringify), generated paths over their keys, and the cases JavaScript and jq print
// differently (exponents, keys that are array indexes, controls, DEL, astral and lone surrogates).
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePath, runPath } from '../../src/output/jq-paths.js';

interface JqWeb {
  raw(input: string, filter: string, flags?: string[]): string | undefined;
}
const jq = await (createRequire(import.meta.url)('jq-web') as Promise<JqWeb>);

/**
 * What jq prints, or ERROR when it fails. jq-web hands back the output less its last newline, so
 * '' is either no result or one empty string: then both answers are jq's ('' | '\n').
 */
function jqSays(text: string, expr: string): string {
  const exitCode = process.exitCode;
  try {
    const out = jq.raw(text, expr, ['-r', '-c']) ?? '';
    return out === '' ? '' : `${out}\n`;
  } catch {
    return 'ERROR';
  } finally {
    process.exitCode = exitCode;
  }
}

const tally = { answered: 0, left: 0 };

/** Where the path program answers, it answers as jq; where jq fails, it leaves it to jq. */
function agrees(doc: string, expr: string): void {
  const steps = parsePath(expr);
  expect(steps, expr).toBeDefined();
  const fast = runPath(steps!, doc);
  const real = jqSays(doc, expr);
  if (fast !== undefined) {
    if (real === '') expect(['', '\n'], `${expr} on ${doc}`).toContain(fast);
    else expect(fast, `${expr} on ${doc}`).toBe(real);
  }
  if (real === 'ERROR') expect(fast, `${expr} on ${doc}`).toBeUndefined();
  tally[fast === undefined ? 'left' : 'answered']++;
}

const KEYS = ['id', 'data', 'a', 'b_2', '10', '0', 'x y'];
const doc = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, 1, -7, 0.1, 1.5, 1e21, 5e-7, 123456789012345680000, 2 ** 53 + 2),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 4 }),
    fc.constantFrom('plain', 'tab\there', 'del\u007f', 'line\u2028sep', 'é', '😀', 'nul\u0000', 'c1\u0085'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
  ),
})).value;
const step = fc.oneof(
  fc.constantFrom(...KEYS.filter((k) => /^[A-Za-z_]\w*$/.test(k))).map((k) => `.${k}`),
  fc.integer({ min: -3, max: 3 }).map((i) => `[${i}]`),
  fc.constant('[]'),
);
const path = fc.array(step, { maxLength: 4 }).map((steps) => {
  const text = `.${steps.join('')}`.replace(/^\.\./, '.').replace(/^\.\.\[/, '.[');
  return text === '' ? '.' : text;
});

describe('--jq path programs', () => {
  it('parse only what is a path, and leave keywords and anything else to jq', () => {
    expect(parsePath('.')).toEqual([]);
    expect(parsePath('.id')).toEqual([{ key: 'id' }]);
    expect(parsePath(' .data[].id ')).toEqual([{ key: 'data' }, { each: true }, { key: 'id' }]);
    expect(parsePath('.data[0].email')).toEqual([{ key: 'data' }, { index: 0 }, { key: 'email' }]);
    expect(parsePath('.[-1]')).toEqual([{ index: -1 }]);
    for (const other of [
      '..',
      '.a | .b',
      '.["a"]',
      '.a?',
      '.if',
      '{id}',
      '.a,.b',
      'map(.id)',
      '.a.[]',
      '$ENV',
      '.[1.5]',
    ])
      expect(parsePath(other), other).toBeUndefined();
  });

  it('print what jq prints on generated documents and paths, or leave them to jq', () => {
    fc.assert(
      fc.property(doc, path, fc.boolean(), (value, expr, pretty) => {
        const text = `${JSON.stringify(value, null, pretty ? 2 : undefined)}\n`;
        agrees(text, expr);
      }),
      { numRuns: Number(process.env.JQ_PATH_RUNS ?? 400) },
    );
    expect(tally.answered).toBeGreaterThan((tally.answered + tally.left) / 20); // it does answer (about 1 in 9 of these nasty ones), not only leave all to jq
  });

  it('NDJSON: every line one input, in order', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 4 }), path, (values, expr) => {
        agrees(`${values.map((v) => JSON.stringify(v)).join('\n')}\n`, expr);
      }),
      { numRuns: 150 },
    );
  });

  it('answers the common cases itself (nothing left to jq)', () => {
    const card = JSON.stringify(
      { id: '01JD2QA1B2C3D4E5F6G7H8J9KM', balance_minor: 5000, status: 'active', meta: null },
      null,
      2,
    );
    for (const expr of ['.id', '.balance_minor', '.', '.meta', '.missing', '.meta.x'])
      expect(runPath(parsePath(expr)!, card), expr).toBe(jqSays(card, expr));
    const list = JSON.stringify({ data: [{ id: 'a' }, { id: 'b' }], meta: { has_more: false } });
    expect(runPath(parsePath('.data[].id')!, list)).toBe('a\nb\n');
    expect(runPath(parsePath('.data[-1]')!, list)).toBe(jqSays(list, '.data[-1]'));
  });
});
