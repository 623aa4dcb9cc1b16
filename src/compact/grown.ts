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
