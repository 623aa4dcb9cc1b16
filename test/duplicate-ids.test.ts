import { describe, expect, it } from 'vitest';
import { DuplicateIds } from '../src/pipeline/classifyRows.js';

describe('DuplicateIds', () => {
  it('names the first row of a repeated id in pass 1, and gives the same answers in pass 2 after freeze()', () => {
    const ids = new DuplicateIds();
    const pass = () => [
      ids.check('a', 'one.csv', 2),
      ids.check('b', 'one.csv', 3),
      ids.check('a', 'one.csv', 4),
      ids.check('a', 'two.jsonl', 1),
      ids.check('b', 'two.jsonl', 2),
    ];
    const first = pass();
    expect(first).toEqual([undefined, undefined, 'one.csv:2', 'one.csv:2', 'one.csv:3']);
    ids.freeze();
    expect(pass()).toEqual(first);
  });

  it('compares ids exactly: case, spaces, composed and decomposed accents and prefixes are different ids', () => {
    const ids = new DuplicateIds();
    const distinct = [
      'abc',
      'ABC',
      'abc ',
      ' abc',
      'ab',
      'abcd',
      'caf\u00e9',
      'cafe\u0301',
      '\u{1F600}',
      '\u{1F601}',
      '',
      'x'.repeat(5000),
      `${'x'.repeat(4999)}y`,
    ];
    distinct.forEach((id, i) => {
      expect(ids.check(id, 'p.csv', i + 2)).toBeUndefined();
    });
    distinct.forEach((id, i) => {
      expect(ids.check(id, 'p.csv', 100 + i)).toBe(`p.csv:${i + 2}`);
    });
  });

  it('holds a large file exactly: no distinct id among 200,000 is called a repeat, every real repeat is found', () => {
    const ids = new DuplicateIds();
    let repeats = 0;
    for (let i = 0; i < 200_000; i++) if (ids.check(`payer-${i}`, 'big.csv', i + 2) !== undefined) repeats++;
    expect(repeats).toBe(0);
    for (let i = 0; i < 200_000; i += 997)
      expect(ids.check(`payer-${i}`, 'big.csv', 300_000 + i)).toBe(`big.csv:${i + 2}`);
    ids.freeze();
    expect(ids.check('payer-997', 'big.csv', 300_997)).toBe('big.csv:999');
    expect(ids.check('payer-997', 'big.csv', 999)).toBeUndefined();
    expect(ids.check('payer-998', 'big.csv', 300_998)).toBeUndefined();
  });

  it('answers pass 2 by place even when pass 1 met its sources out of order', () => {
    const ids = new DuplicateIds();
    expect(ids.check('a', 'one.csv', 10)).toBeUndefined();
    expect(ids.check('a', 'two.csv', 5)).toBe('one.csv:10');
    expect(ids.check('a', 'one.csv', 3)).toBe('one.csv:10');
    ids.freeze();
    expect(ids.check('a', 'one.csv', 3)).toBe('one.csv:10');
    expect(ids.check('a', 'two.csv', 5)).toBe('one.csv:10');
    expect(ids.check('a', 'one.csv', 10)).toBeUndefined();
  });
});
