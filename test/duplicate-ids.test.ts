import { describe, expect, it } from 'vitest';
import { DuplicateIds } from '../src/pipeline/DuplicateIds.js';

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
});
