// A seeded PRNG so that a sandbox started with the same seed and sent the same requests in the same
// order injects the same faults and hands out the same ids: benchmarks and demos repeat exactly.

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An unsigned 32-bit integer. */
  uint32(): number;
}

/** mulberry32: tiny, fast and good enough for fault injection (not for anything secret). */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const uint32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return { uint32, next: () => uint32() / 4294967296 };
}

/** A version-4 UUID drawn from `rng`, so ids repeat with the seed (crypto.randomUUID would not). */
export function randomUuid(rng: Rng): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i += 4) {
    const word = rng.uint32();
    bytes[i] = word >>> 24;
    bytes[i + 1] = (word >>> 16) & 0xff;
    bytes[i + 2] = (word >>> 8) & 0xff;
    bytes[i + 3] = word & 0xff;
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
