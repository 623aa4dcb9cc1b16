import { describe, expect, it } from 'vitest';
import { grown, HashIndex } from '../../src/core/compactTables.js';

describe('HashIndex', () => {
  it("finds each entry among many that share one hash, only through the caller's equality", () => {
    const index = new HashIndex();
    const keys: string[] = [];
    for (let i = 0; i < 3000; i++) {
      keys.push(`key-${i}`);
      expect(index.add(42)).toBe(i); // every key under the same hash: the worst case
    }
    expect(index.size).toBe(3000);
    for (const i of [0, 1, 1023, 1024, 2999]) expect(index.find(42, (entry) => keys[entry] === `key-${i}`)).toBe(i);
    expect(index.find(42, () => false)).toBe(-1);
    expect(index.find(43, () => true)).toBe(-1);
  });

  it('keeps entries findable across growth, with hashes over the whole 32-bit range', () => {
    const index = new HashIndex();
    const hashes = Array.from({ length: 50_000 }, (_, i) => Math.imul(i + 1, 0x9e3779b1) >>> 0);
    for (const hash of hashes) index.add(hash);
    hashes.forEach((hash, i) => {
      expect(index.find(hash, (entry) => entry === i)).toBe(i);
    });
  });

  it('grown() doubles a typed array and keeps its contents', () => {
    const a = Uint32Array.from([1, 2, 3]);
    const b = grown(a, 20);
    expect(b).toBeInstanceOf(Uint32Array);
    expect(b.length).toBe(32);
    expect([...b.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect(grown(b, 10)).toBe(b);
  });
});
