import fc from 'fast-check';

/** A cell's text: what people type, what their tools add, and what breaks parsers (quotes, line ends, NUL, BOM, lone surrogates). */
export const cellText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '"',
      '""',
      'a"b',
      '\r',
      '\n',
      '\r\n',
      '\u0000',
      '\ufeff',
      'André',
      'Ünïcödé',
      '\ud800',
      '=cmd|/c calc',
      '1e308',
      '-0',
      '0x1F',
      '2024-02-30',
      '31/12/1999',
      '44927',
      'TRUE',
      '   ',
      '#N/A',
    ),
  },
);

/** A text far longer than a cell: a test of the caps, at sizes `npm test` can afford or the open-ended run can. */
export const hugeText = (most: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('a', '"', ',', '\n', 'é', '[', '\\'), fc.integer({ min: 1_000, max: most }))
    .map(([unit, length]) => unit.repeat(length));
