import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RawRecord } from '../../src/input/InputFile.js';
import { openInput } from '../../src/input/openInput.js';
import { JsonNumber } from '../../src/rows/findData.js';
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
  return records;
}

describe('JSONL input', () => {
  it('reads one object per line with its line number, skipping blank lines', async () => {
    const records = await readAll(
      tmp.write(
        'p.jsonl',
        '{"clientUserId":"u1","postcode":90210}\n\n{"clientUserId":"u2","paymentDetails":[{"iban":"x"}]}\n',
      ),
    );
    expect(records.map((r) => r.line)).toEqual([1, 3]);
    expect(records[0]!.cells).toEqual([
      { column: 'clientUserId', value: 'u1' },
      { column: 'postcode', value: 90210 },
    ]);
    expect(records[1]!.original).toBe('{"clientUserId":"u2","paymentDetails":[{"iban":"x"}]}');
  });

  it('keeps a number written otherwise than as its value (a fraction, an exponent) with its text, in paymentDetails too', async () => {
    const records = await readAll(
      tmp.write('p.jsonl', '{"postcode":6.2701e4,"ssn":"1","paymentDetails":[{"sortCode":400515,"x":-0.50}]}\n'),
    );
    const cells = records[0]!.cells;
    expect(cells[0]!.value).toStrictEqual(new JsonNumber('6.2701e4', 62701));
    // Read as text, or written back as JSON, it is its value, as a plain number is.
    expect(String(cells[0]!.value)).toBe('62701');
    expect(JSON.stringify(cells[0]!.value)).toBe('62701');
    expect(cells[2]!.value).toStrictEqual([{ sortCode: 400515, x: new JsonNumber('-0.50', -0.5) }]);
  });

  it("makes a line that is not JSON, or not an object, that row's problem without echoing its content", async () => {
    const records = await readAll(tmp.write('p.ndjson', '{"ssn":"123-45-6789"\n[1,2]\n{"a":"b"}\n'));
    expect(records.map((r) => r.problem)).toEqual([
      {
        column: '(line)',
        message:
          'is not valid JSON: the end of the line before the closing }, after the value of "ssn": the line is cut short, or JSONL needs each object whole on one line',
      },
      {
        column: '(line)',
        message:
          'is a list ([...]), not one object: write each object ({"clientUserId": "...", ...}) on a line of its own, without [ ]',
      },
      undefined,
    ]);
    expect(records[0]!.problem!.message).not.toContain('123-45-6789');
  });

  it('keeps what can be read of a broken line as its cells, and reads a failed line given back without its note', async () => {
    const broken = '{"clientUserId":"p-1","city":"Boston,"postcode":"02139",}';
    const noted = `{"error":"(line): ...","completedSteps":"from=p.jsonl:4",${broken.slice(1)}`;
    const records = await readAll(tmp.write('p.jsonl', `${broken}\n${noted}\n`));
    expect(records[0]).toEqual({
      line: 1,
      original: broken,
      cells: [
        { column: 'clientUserId', value: 'p-1' },
        { column: 'postcode', value: '02139' },
      ],
      problem: {
        column: '(line)',
        message: 'is not valid JSON: a quote missing or one too many after the value of "city"',
      },
    });
    expect(records[1]).toEqual({
      ...records[0],
      line: 2,
      cells: [{ column: 'completedSteps', value: 'from=p.jsonl:4' }, ...records[0]!.cells],
    });
  });

  it('rejects an empty file', async () => {
    await expect(readAll(tmp.write('e.jsonl', '\n'))).rejects.toThrow(
      'e.jsonl: is empty: expected one JSON object per line',
    );
  });

  it('rejects a missing file, and names the line of bytes that are not UTF-8 further down the file', async () => {
    await expect(readAll(tmp.path('nope.jsonl'))).rejects.toThrow(
      `nope.jsonl: no such file (looked for ${tmp.path('nope.jsonl')}): check its name and folder`,
    );
    const bad = Buffer.concat([
      Buffer.from('{"clientUserId":"u1"}\n{"clientUserId":"M'),
      Buffer.from([0xfc]),
      Buffer.from('"}\n'),
    ]);
    await expect(readAll(tmp.write('bad.jsonl', bad))).rejects.toThrow(
      'bad.jsonl:2:19: is not valid UTF-8 (byte 0xfc)',
    );
  });
});
