import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/errors.js';
import { type CsvRecord, csvRecords } from '../src/input/csvRecords.js';

async function* chunked(text: string, sizes: number[]): AsyncGenerator<string> {
  let at = 0;
  for (let i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length]!;
    yield text.slice(at, at + size);
    at += size;
  }
}

async function records(text: string, sizes = [text.length || 1], delimiter = ','): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const record of csvRecords(chunked(text, sizes), 'p.csv', delimiter)) out.push(record);
  return out;
}

/** A seeded generator, so a failure names a text that can be read again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** A CSV text of awkward fields: quoted delimiters, doubled quotes, line breaks of every kind, blank lines. */
function awkwardCsv(next: () => number): string {
  const pieces = ['a', 'Müller', ' x ', '', '1,5', 'say "hi"', 'two\nlines', 'cr\r\nlf', '日本'];
  const eol = ['\n', '\r\n'][Math.floor(next() * 2)]!;
  const lines: string[] = [];
  for (let r = 0; r < 12; r++) {
    if (next() < 0.1) {
      lines.push('');
      continue;
    }
    const cells: string[] = [];
    const count = 1 + Math.floor(next() * 4);
    for (let c = 0; c < count; c++) {
      const piece = pieces[Math.floor(next() * pieces.length)]!;
      const needsQuotes = /[",\r\n]/.test(piece) || (piece === '' && count === 1);
      cells.push(needsQuotes || next() < 0.2 ? `"${piece.replace(/"/g, '""')}"` : piece);
    }
    lines.push(cells.join(','));
  }
  return lines.join(eol) + (next() < 0.5 ? eol : '');
}

describe('csvRecords', () => {
  it('reads what csv-parse reads, cut into chunks anywhere', async () => {
    const next = random(7);
    for (let n = 0; n < 200; n++) {
      const text = awkwardCsv(next);
      const expected = parse(text, {
        relax_column_count: true,
        skip_empty_lines: true,
        info: true,
      }) as unknown as Array<{
        record: string[];
      }>;
      const sizes = [1 + Math.floor(next() * 7), 1 + Math.floor(next() * 30)];
      const got = await records(text, sizes);
      expect(
        got.map((r) => r.cells),
        JSON.stringify(text),
      ).toEqual(expected.map((e) => e.record));
    }
  });

  it('numbers each record by the line it starts on, counting blank lines and breaks inside quotes', async () => {
    const got = await records('h\r\n"a\r\nb"\r\n\r\nc\rd\n"e\rf"\ng', [3]);
    expect(got.map((r) => [r.line, r.cells])).toEqual([
      [1, ['h']],
      [2, ['a\r\nb']],
      [5, ['c']],
      [6, ['d']],
      [7, ['e\rf']],
      [9, ['g']],
    ]);
  });

  it('reads a file of lone CRs (Excel for Mac) and a tab-separated one', async () => {
    expect((await records('a,b\r1,2\r3,4\r', [5])).map((r) => r.cells)).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
    expect((await records('a\tb\n1\t"x\ty"\n', [4], '\t')).map((r) => r.cells)).toEqual([
      ['a', 'b'],
      ['1', 'x\ty'],
    ]);
  });

  it.each([
    ['a,b\n1,"2\n3,4\n', 'p.csv:2: a quoted field opened here is never closed: check for a stray `"`'],
    [
      'a,b\n1,"2"x\n',
      'p.csv:2:2: a quote is followed by other text inside a quoted field: double the quote (`""`) or remove it',
    ],
    [
      'a,b\n1,2"x\n',
      'p.csv:2:2: a quote inside a field that does not start with one: put the whole field in quotes and double the quote (`""`)',
    ],
  ])('refuses %j naming line and column', async (text, message) => {
    const error = await records(text, [3]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(message);
  });

  it('refuses a record over 4 MB (a stray quote swallowing the file) before holding more', async () => {
    const text = `a\n"${'x'.repeat(5 * 1024 * 1024)}`;
    const error = await records(text, [64 * 1024]).catch((e: unknown) => e);
    expect((error as InputError).message).toBe('p.csv:2: a record here is larger than 4 MB: check for a stray `"`');
  });
});
