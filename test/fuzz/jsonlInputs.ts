import fc from 'fast-check';
import { mutate, mutations } from './mutate.js';
import { JSONL_SEED } from './seeds.js';
import { cellText, hugeText } from './texts.js';
import type { FuzzInput } from './tryInput.js';

const KEYS = [...new Set(JSONL_SEED.flatMap((payer) => Object.keys(payer)))];

/** A value where a payer's field is: any JSON, a text, or one nested far deeper than a payer row is. */
const value = (huge: number) =>
  fc.oneof(
    { weight: 80, arbitrary: cellText },
    { weight: 60, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    // Rare: a huge or deep value costs a hundred small lines' time.
    { weight: 2, arbitrary: hugeText(huge) },
    {
      weight: 2,
      arbitrary: fc
        .integer({ min: 2, max: 3000 })
        .map((depth) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
    },
  );

/** What can happen to one line as text after it is written: cut short, brackets left open, a token broken. */
const damage = fc.oneof(
  fc.constant((line: string) => line),
  fc.double({ min: 0, max: 1, noNaN: true }).map((at) => (line: string) => line.slice(0, Math.floor(at * line.length))),
  fc.integer({ min: 1, max: 6000 }).map((depth) => (line: string) => `${'['.repeat(depth)}${line}`),
  fc.constantFrom('"', '{', '}', ',', ':', '\\', '\\u12', 'tru', '1e99999', 'NaN').chain((token) =>
    fc.double({ min: 0, max: 1, noNaN: true }).map((at) => (line: string) => {
      const cut = Math.floor(at * line.length);
      return line.slice(0, cut) + token + line.slice(cut);
    }),
  ),
);

/** A JSON lines file of the sample payers, fields changed, lines damaged, then its bytes changed. */
export const jsonlInput = ({ huge, changes }: { huge: number; changes: number }): fc.Arbitrary<FuzzInput> =>
  fc
    .record({
      lines: fc.array(
        fc.record({
          payer: fc.nat({ max: JSONL_SEED.length - 1 }),
          fields: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), value(huge)), {
            maxLength: 3,
          }),
          damage: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: damage }),
        }),
        { maxLength: 5 },
      ),
      newline: fc.constantFrom('\n', '\r\n', '\n\n'),
      bom: fc.boolean(),
      changes: mutations(changes),
    })
    .map(({ lines, newline, bom, changes }) => {
      const text = lines
        .map(({ payer, fields, damage }) => {
          const line = JSON.stringify({ ...JSONL_SEED[payer], ...Object.fromEntries(fields) });
          return damage === undefined ? line : damage(line);
        })
        .join(newline);
      return { ext: 'jsonl' as const, bytes: mutate(Buffer.from(bom ? `\ufeff${text}` : text), changes) };
    });
