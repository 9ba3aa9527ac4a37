// Deterministic bodies: the same value gives the same bytes whatever the key order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bodyFieldOrder,
  inexactNumbers,
  serializeDeterministic,
  serializeMoneyBody,
} from '../../src/client/serialize.js';

const shuffleKeys = (value: unknown, seed: number): unknown => {
  if (Array.isArray(value)) return value.map((v) => shuffleKeys(v, seed));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!);
    return Object.fromEntries(rotated.reverse().map(([k, v]) => [k, shuffleKeys(v, seed + 1)]));
  }
  return value;
};

describe('serializeDeterministic', () => {
  it('gives identical bytes for any reordering of keys, and parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(20), (value, seed) => {
        const a = serializeDeterministic(value);
        expect(serializeDeterministic(shuffleKeys(value, seed))).toBe(a);
        expect(JSON.parse(a)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(a.replace(/"(?:[^"\\]|\\.)*"/g, '""')).not.toMatch(/\s/); // compact: no whitespace outside strings
      }),
      { numRuns: 300 },
    );
  });

  it('puts the schema fields first, in schema order, then the others sorted', async () => {
    expect(await bodyFieldOrder('cards.issue')).toEqual(['product_id', 'customer_id', 'amount_minor']);
    const body = await serializeMoneyBody('cards.issue', {
      zeta: 1,
      amount_minor: 5,
      alpha: { b: 1, a: 2 },
      customer_id: 'C',
    });
    expect(body.toString('utf8')).toBe('{"customer_id":"C","amount_minor":5,"alpha":{"a":2,"b":1},"zeta":1}');
    expect((await serializeMoneyBody(undefined, { b: 1, a: 2 })).toString('utf8')).toBe('{"a":2,"b":1}');
  });
});

describe('inexactNumbers', () => {
  it('finds the literals a JavaScript number would change, not the ones merely written differently', () => {
    expect(
      inexactNumbers('{"a":9007199254740993,"b":"9007199254740993","c":[1e400,0.1000000000000000055511151231257827]}'),
    ).toEqual([
      { literal: '9007199254740993', becomes: '9007199254740992' },
      { literal: '1e400', becomes: 'null' },
      { literal: '0.1000000000000000055511151231257827', becomes: '0.1' },
    ]);
    expect(
      inexactNumbers('{"a":9007199254740992,"b":1.0,"c":1E2,"d":-0,"e":0.5e-3,"f":123456789012345e-10,"g":"x\\"1.5"}'),
    ).toEqual([]);
  });

  it('accepts every number that JSON.stringify wrote', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(inexactNumbers(JSON.stringify({ n }))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
