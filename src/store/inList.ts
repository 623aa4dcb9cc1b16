/**
 * The values of an `IN (...)` list in chunks of at most 512, each padded (its last value repeated) to a power of two:
 * a statement per chunk rather than per value (a round trip each on a server), and few distinct statements for the
 * embedded store to prepare and keep.
 */
export function* inLists<T extends string | number>(values: Iterable<T>): Generator<{ marks: string; params: T[] }> {
  const all = [...new Set(values)];
  for (let i = 0; i < all.length; i += MOST) {
    const chunk = all.slice(i, i + MOST);
    let size = 1;
    while (size < chunk.length) size *= 2;
    const params = [...chunk, ...Array<T>(size - chunk.length).fill(chunk.at(-1)!)];
    yield { marks: params.map(() => '?').join(', '), params };
  }
}

const MOST = 512;
