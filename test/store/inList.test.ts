import { expect, it } from 'vitest';
import { inLists } from '../../src/store/inList.js';

it('IN lists: each value once, at most 512 a list, each list padded to a power of two with its last value', () => {
  expect([...inLists(['a', 'b', 'a', 'c'])]).toEqual([{ marks: '?, ?, ?, ?', params: ['a', 'b', 'c', 'c'] }]);
  const many = [...inLists(Array.from({ length: 600 }, (_, i) => `k${i}`))];
  expect(many.map((list) => list.params.length)).toEqual([512, 128]);
  expect(new Set(many.flatMap((list) => list.params)).size).toBe(600);
  expect([...inLists([])]).toEqual([]);
});
