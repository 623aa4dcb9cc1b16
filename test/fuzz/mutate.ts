import fc from 'fast-check';

/** One change to a file's bytes, at a place given as a share of its length (so it fits any length). */
type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'repeat'; at: number; length: number; times: number }
  | { kind: 'truncate'; at: number };

const share = fc.double({ min: 0, max: 1, noNaN: true });

/** Bytes that mean something to a reader: line ends, quotes, separators, NUL, a BOM, UTF-8 lead and stray bytes. */
const telling = fc.constantFrom(
  [0x0a],
  [0x0d],
  [0x0d, 0x0a],
  [0x22],
  [0x2c],
  [0x3b],
  [0x09],
  [0x00],
  [0xef, 0xbb, 0xbf],
  [0xff, 0xfe],
  [0xc3],
  [0xe9],
  [0x80],
  [0x5b],
  [0x7b],
  [0x3c],
  [0x26],
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: share, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: share,
    bytes: fc.oneof(
      telling.map((b) => Uint8Array.from(b)),
      fc.uint8Array({ minLength: 1, maxLength: 8 }),
    ),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: share, length: fc.integer({ min: 1, max: 64 }) }),
  fc.record({
    kind: fc.constant('repeat' as const),
    at: share,
    length: fc.integer({ min: 1, max: 16 }),
    times: fc.integer({ min: 2, max: 2000 }),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: share }),
);

/** Up to `most` changes, often none: a file that is only slightly wrong reaches deeper into a reader than noise. */
export const mutations = (most: number) => fc.array(mutation, { maxLength: most });

export function mutate(bytes: Uint8Array, changes: readonly Mutation[]): Uint8Array {
  let out = Buffer.from(bytes);
  for (const change of changes) {
    const at = Math.floor(change.at * out.length);
    switch (change.kind) {
      case 'flip':
        if (out.length > 0) out[Math.min(at, out.length - 1)]! ^= 1 << change.bit;
        break;
      case 'insert':
        out = Buffer.concat([out.subarray(0, at), change.bytes, out.subarray(at)]);
        break;
      case 'delete':
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + change.length)]);
        break;
      case 'repeat': {
        const piece = out.subarray(at, at + change.length);
        out = Buffer.concat([out.subarray(0, at), ...Array<Buffer>(change.times).fill(piece), out.subarray(at)]);
        break;
      }
      case 'truncate':
        out = out.subarray(0, at);
        break;
    }
  }
  return out;
}
