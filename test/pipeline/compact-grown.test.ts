import { describe, expect, it } from 'vitest';
import { grown } from '../../src/core/compactTables.js';

describe('grown', () => {
  it('doubles a typed array and keeps its contents', () => {
    const a = Uint32Array.from([1, 2, 3]);
    const b = grown(a, 20);
    expect(b).toBeInstanceOf(Uint32Array);
    expect(b.length).toBe(32);
    expect([...b.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect(grown(b, 10)).toBe(b);
  });
});
