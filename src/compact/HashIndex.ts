import { grown } from './grown.js';

/**
 * Entry numbers (0, 1, 2, ... in the order added) found by a 32-bit hash, held in typed arrays. A Map of a
 * million string keys costs about 100 bytes a key on the V8 heap, and V8 lets its heap grow to about four times
 * what is live before collecting, so every byte kept there costs several of RSS (design.md §9). Here an entry
 * costs 8 to 12 bytes (its hash and its slot) outside the heap.
 *
 * The caller keeps the entries themselves and decides equality (`matches`): two keys may share a hash, so a hash
 * alone never finds an entry. Linear probing, at most half full, never shrinks.
 */
export class HashIndex {
  /** Entry + 1 per slot; 0 is an empty slot. A power of two long. */
  private slots = new Int32Array(1024);
  /** The hash of each entry: probes compare it first, and growing re-files entries without rehashing keys. */
  private hashes = new Uint32Array(512);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The entry with this hash that `matches`, or -1. */
  find(hash: number, matches: (entry: number) => boolean): number {
    const mask = this.slots.length - 1;
    const wanted = hash >>> 0;
    for (let slot = wanted & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) return -1;
      if (this.hashes[entry] === wanted && matches(entry)) return entry;
    }
  }

  /** Files a new entry under `hash` and returns its number (the previous size). Does not look for an equal one. */
  add(hash: number): number {
    const entry = this.count;
    if (entry >= 0x7ffffffe) throw new RangeError('HashIndex is full');
    if ((entry + 1) * 2 > this.slots.length) this.grow();
    if (entry >= this.hashes.length) this.hashes = grown(this.hashes, entry + 1);
    this.hashes[entry] = hash >>> 0;
    this.place(entry);
    this.count++;
    return entry;
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[entry]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let entry = 0; entry < this.count; entry++) this.place(entry);
  }
}
