import { describe, expect, it } from 'vitest';
import { DuplicateIds } from '../../src/pipeline/classifyRows.js';

describe('DuplicateIds', () => {
  it('names the first row of a repeated id, in its own file or an earlier one', () => {
    const ids = new DuplicateIds();
    expect([
      ids.check('a', 'one.csv', 2),
      ids.check('b', 'one.csv', 3),
      ids.check('a', 'one.csv', 4),
      ids.check('a', 'two.jsonl', 1),
      ids.check('b', 'two.jsonl', 2),
      ids.check('c', 'two.jsonl', 3),
    ]).toEqual([undefined, undefined, 'one.csv:2', 'one.csv:2', 'one.csv:3', undefined]);
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
    expect(ids.check('payer-998', 'big.csv', 1000)).toBeUndefined(); // the first row itself
  });

  it('does not call a row a repeat of itself when the same row is checked again', () => {
    const ids = new DuplicateIds();
    expect(ids.check('a', 'one.csv', 10)).toBeUndefined();
    expect(ids.check('a', 'one.csv', 10)).toBeUndefined();
    expect(ids.check('a', 'two.csv', 10)).toBe('one.csv:10');
  });
});
