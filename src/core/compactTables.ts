type TypedArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** A copy of `array` with room for at least `needed` items, doubling, so n additions cost O(n) copying in all. */
export function grown<T extends TypedArray>(array: T, needed: number): T {
  let length = Math.max(array.length, 16);
  while (length < needed) length *= 2;
  if (length === array.length) return array;
  const bigger = new (array.constructor as new (length: number) => T)(length);
  bigger.set(array);
  return bigger;
}

const encoder = new TextEncoder();
const BLOCK_BITS = 20;
/** Ids are stored in blocks of 1 MB that never move: growing copies nothing, so no old copy waits for the GC. */
const BLOCK_SIZE = 1 << BLOCK_BITS;
/** Positions are block * BLOCK_SIZE + offset in 32 bits, and a slot holds position + 1. */
const MAX_BLOCKS = 4095;

/**
 * A set of strings, each with the number (a line) it was first added with: what DuplicateIds needs for every
 * clientUserId of a million-row file, in about 28 bytes an id outside the V8 heap. A Map of strings costs about
 * 100 on the heap, which V8 then lets grow fourfold as garbage before it collects; a million rows must fit in 200 MB.
 *
 * Each id is kept as `line` (4 bytes), its UTF-8 length (1 byte under 128, LEB128) and its UTF-8 bytes, back to back
 * in blocks; an open-addressing table (at most half full) holds where each starts. Lookups compare the bytes, so two
 * ids are the same only when they are equal, whatever their hashes.
 */
export class IdTable {
  private readonly blocks: Uint8Array[] = [];
  /** Bytes used in each block. */
  private readonly used: number[] = [];
  private slots = new Uint32Array(1 << 12);
  private count = 0;
  private scratch = new Uint8Array(256);
  private length = 0;

  get size(): number {
    return this.count;
  }

  /**
   * Looks the id up and, when it is new, adds it with `line` (`size` then grows by one). Returns the entry's
   * position: its identity, growing in the order ids were added.
   */
  add(id: string, line: number): number {
    this.encode(id);
    const mask = this.slots.length - 1;
    let slot = hashBytes(this.scratch, 0, this.length) & mask;
    for (let held = this.slots[slot]!; held !== 0; held = this.slots[slot]!) {
      if (this.holds(held - 1)) return held - 1;
      slot = (slot + 1) & mask;
    }
    const position = this.append(line);
    this.slots[slot] = position + 1;
    this.count++;
    if (this.count * 2 > this.slots.length) this.grow();
    return position;
  }

  /** The line the entry at `position` was added with. */
  lineAt(position: number): number {
    const block = this.blocks[position >>> BLOCK_BITS]!;
    const at = position & (BLOCK_SIZE - 1);
    return (block[at]! | (block[at + 1]! << 8) | (block[at + 2]! << 16) | (block[at + 3]! << 24)) >>> 0;
  }

  private encode(id: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.scratch.length < id.length * 3) this.scratch = new Uint8Array(id.length * 3);
    this.length = encoder.encodeInto(id, this.scratch).written;
  }

  /** Whether the entry at `position` holds the id in `scratch`. */
  private holds(position: number): boolean {
    const block = this.blocks[position >>> BLOCK_BITS]!;
    let at = (position & (BLOCK_SIZE - 1)) + 4;
    let stored = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = block[at++]!;
      stored += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    if (stored !== this.length) return false;
    for (let i = 0; i < stored; i++) if (block[at + i] !== this.scratch[i]) return false;
    return true;
  }

  /** Writes the id in `scratch` with its line at the end of the last block (or a new one); its position. */
  private append(line: number): number {
    const needed = 4 + 5 + this.length;
    let index = this.blocks.length - 1;
    if (index < 0 || this.used[index]! + needed > this.blocks[index]!.length) {
      if (this.blocks.length === MAX_BLOCKS) throw new RangeError('IdTable is full: more than 4 GB of ids');
      // An id longer than a block (not one the readers let through) gets a block of its own.
      this.blocks.push(new Uint8Array(Math.max(BLOCK_SIZE, needed)));
      this.used.push(0);
      index++;
    }
    const block = this.blocks[index]!;
    const start = this.used[index]!;
    let at = start;
    block[at++] = line & 0xff;
    block[at++] = (line >>> 8) & 0xff;
    block[at++] = (line >>> 16) & 0xff;
    block[at++] = (line >>> 24) & 0xff;
    for (let rest = this.length; ; rest = Math.floor(rest / 128)) {
      block[at++] = rest < 0x80 ? rest : (rest & 0x7f) | 0x80;
      if (rest < 0x80) break;
    }
    // Byte by byte: an id is a few bytes, and a subarray to copy them with is an object made for every row.
    for (let i = 0; i < this.length; i++) block[at + i] = this.scratch[i]!;
    this.used[index] = at + this.length;
    return index * BLOCK_SIZE + start;
  }

  /** Doubles the table, re-filing every entry by the hash of its bytes (read back from the blocks). */
  private grow(): void {
    const slots = new Uint32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    this.blocks.forEach((block, index) => {
      for (let at = 0; at < this.used[index]!; ) {
        const position = index * BLOCK_SIZE + at;
        at += 4;
        let length = 0;
        for (let shift = 0; ; shift += 7) {
          const byte = block[at++]!;
          length += (byte & 0x7f) * 2 ** shift;
          if (byte < 0x80) break;
        }
        let slot = hashBytes(block, at, at + length) & mask;
        while (slots[slot] !== 0) slot = (slot + 1) & mask;
        slots[slot] = position + 1;
        at += length;
      }
    });
    this.slots = slots;
  }
}

/** FNV-1a over the bytes, then murmur3's finaliser so that ids differing only at the end spread across slots. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
