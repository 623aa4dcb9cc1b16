import { describe, expect, it } from 'vitest';
import { IdTable } from '../../src/core/compactTables.js';

describe('IdTable', () => {
  it('adds each distinct id once, keeping the line it came with, across blocks and table growth', () => {
    const table = new IdTable();
    const positions: number[] = [];
    // About 4 MB of ids: several 1 MB blocks and many doublings of the slot table.
    for (let i = 0; i < 150_000; i++) positions.push(table.add(`payer-${i}-${'x'.repeat(i % 40)}`, i + 2));
    expect(table.size).toBe(150_000);
    expect(new Set(positions).size).toBe(150_000);
    expect(positions).toEqual([...positions].sort((a, b) => a - b)); // positions grow in the order of adding
    for (let i = 0; i < 150_000; i += 499) {
      const position = table.add(`payer-${i}-${'x'.repeat(i % 40)}`, 999_999);
      expect(position).toBe(positions[i]);
      expect(table.lineAt(position)).toBe(i + 2);
    }
    expect(table.size).toBe(150_000);
  });

  it('keeps lines up to 2^32 - 1 and ids of any length, a block long or more', () => {
    const table = new IdTable();
    const long = '\u00e9'.repeat(600_000); // 1.2 MB of UTF-8: more than a block
    const a = table.add(long, 2 ** 32 - 1);
    const b = table.add(`${long}!`, 7);
    const c = table.add('after', 8);
    expect(table.lineAt(a)).toBe(2 ** 32 - 1);
    expect(table.lineAt(b)).toBe(7);
    expect(table.lineAt(c)).toBe(8);
    expect(table.add(long, 1)).toBe(a);
    expect(table.add(`${long}!`, 1)).toBe(b);
    expect(table.size).toBe(3);
  });
});
