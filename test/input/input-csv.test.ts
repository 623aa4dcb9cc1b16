import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.remove();
});

async function readAll(path: string) {
  const input = await openInput(path);
  const records: RawRecord[] = [];
  for await (const r of input.records) records.push(r);
  return { input, records };
}

async function rejection(path: string): Promise<InputError> {
  try {
    await readAll(path);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

describe('CSV input', () => {
  it('reads a BOM, `;` delimiter, CRLF and quoted fields with delimiters, quotes and newlines, keeping every value a string', async () => {
    const path = tmp.write(
      'p.csv',
      '\uFEFFclientUserId;routingNumber;phone;note\r\nu1;021000021;+12175550100;"a;b"\r\nu2;011000015;+1 555;"two\r\nlines, ""quoted"""\r\n',
    );
    const { input, records } = await readAll(path);
    expect(input.header).toEqual(['clientUserId', 'routingNumber', 'phone', 'note']);
    expect(input.dialect).toEqual({ delimiter: ';', bom: true, eol: '\r\n' });
    expect(records.map((r) => r.line)).toEqual([2, 3]);
    expect(records[0]!.cells).toEqual([
      { column: 'clientUserId', value: 'u1' },
      { column: 'routingNumber', value: '021000021' },
      { column: 'phone', value: '+12175550100' },
      { column: 'note', value: 'a;b' },
    ]);
    expect(records[1]!.original).toEqual(['u2', '011000015', '+1 555', 'two\r\nlines, "quoted"']);
  });

  it('detects tab and comma delimiters and numbers lines after multi-line cells and blank lines', async () => {
    const tsv = await readAll(tmp.write('p.tsv', 'a\tb\n1\t2\n'));
    expect(tsv.input.dialect?.delimiter).toBe('\t');
    const csv = await readAll(tmp.write('p.csv', 'a,b\n"x\ny\nz",1\n\n\n2,3\n'));
    expect(csv.input.dialect).toEqual({ delimiter: ',', bom: false, eol: '\n' });
    expect(csv.records.map((r) => r.line)).toEqual([2, 7]);
  });

  it("marks a ragged row as that row's problem and goes on", async () => {
    const { records } = await readAll(tmp.write('p.csv', 'a,b,c\n1,2\n1,2,3,\n1,2,3,4\n5,6,7\n'));
    expect(records.map((r) => r.problem?.message)).toEqual([
      'has 2 cells but the header has 3: check for a missing or extra delimiter',
      'has 4 cells but the header has 3: check for a missing or extra delimiter', // even an empty extra cell shifts columns
      'has 4 cells but the header has 3: check for a missing or extra delimiter',
      undefined,
    ]);
  });

  it("marks a 1 MB cell as that row's problem", async () => {
    const { records } = await readAll(tmp.write('p.csv', `a,b\n1,${'x'.repeat(1024 * 1024)}\n2,3\n`));
    expect(records[0]!.problem).toEqual({ column: 'b', message: 'is 1048576 characters long, at most 10000' });
    expect(records[1]!.problem).toBeUndefined();
  });

  it.each([
    ['empty.csv', '', 'empty.csv: is empty: expected a header line and at least one row'],
    ['blank.csv', '\n\n', 'blank.csv: is empty: expected a header line and at least one row'],
    [
      'quote.csv',
      'a,b\n1,2\n3,"4\n5,6\n',
      'quote.csv:3: a quoted field opened here is never closed: check for a stray `"`',
    ],
    // Real UTF-8 (ü) before an invalid byte is a damaged file, not Windows-1252 (test/encoding-csv.test.ts has that).
    [
      'mixed.csv',
      Buffer.concat([Buffer.from('a,b\n1,Mü\n2,M'), Buffer.from([0xfc]), Buffer.from('ller\n')]),
      'mixed.csv:3:4: is not valid UTF-8 (byte 0xfc): save the file as "CSV UTF-8"',
    ],
    // A byte that starts a character the next byte breaks (Windows-1252 `ç` before `o`) is the one named.
    [
      'lead.csv',
      Buffer.concat([Buffer.from('a,b\n1,Mü\n2,Fran'), Buffer.from([0xe7]), Buffer.from('ois\n')]),
      'lead.csv:3:7: is not valid UTF-8 (byte 0xe7): save the file as "CSV UTF-8"',
    ],
    ['payers.xls', 'x', 'payers.xls: the old Excel format ".xls" cannot be read: save it as .xlsx or "CSV UTF-8"'],
    ['payers.pdf', 'x', 'payers.pdf: unsupported file type ".pdf": use .csv, .txt, .tsv, .xlsx, .jsonl or .ndjson'],
  ])('rejects %s with file, line and reason', async (name, content, message) => {
    const error = await rejection(tmp.write(name, content));
    expect(error.message).toBe(message);
    expect(error.code).toBe('E_INPUT');
    expect(error.exitCode).toBe(2);
  });

  it('rejects a missing file', async () => {
    const error = await rejection(tmp.path('nope.csv'));
    expect(error.message).toBe(
      `nope.csv: no such file (looked for ${tmp.path('nope.csv')}): check its name and folder`,
    );
  });
});
