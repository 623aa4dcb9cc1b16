import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInput } from '../../src/input/openInput.js';
import type { RawRecord } from '../../src/input/InputFile.js';
import { harness, PAYER_HEADER, payerRow, readResults } from '../helpers/runHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';

// Text files a fuzzer made: each ends in exit 0, 1 or 2 with one sentence of the tool's own, within bounds of time
// and memory, and is read the same way by validate and run.

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

/** The bin on a file, its exit code, its `payer-onboard:` sentences, and its peak memory (written by a preload). */
async function bin(args: string[]): Promise<{ code: number | null; said: string[]; maxRssMb: number; ms: number }> {
  const preload = h.tmp.write(
    'rss.cjs',
    "process.on('exit', () => require('fs').writeFileSync(process.env.RSS_OUT, String(process.resourceUsage().maxRSS)));",
  );
  const rss = h.tmp.path(`rss-${Math.random().toString(36).slice(2)}`);
  const started = Date.now();
  const { code, stderr } = await spawnBin(args, {
    cwd: h.tmp.dir,
    env: { NODE_OPTIONS: `--require ${preload}`, RSS_OUT: rss },
  }).done;
  const ms = Date.now() - started;
  const said = stderr.split('\n').filter((line) => line.startsWith('payer-onboard:'));
  return { code, said, ms, maxRssMb: Number(readFileSync(rss, 'utf8')) / 1024 };
}

async function rowsOf(path: string, encoding?: string): Promise<RawRecord[]> {
  const input = await openInput(path, encoding === undefined ? {} : { encoding });
  const rows: RawRecord[] = [];
  for await (const row of input.records) rows.push(row);
  return rows;
}

describe('hostile text files', () => {
  it('a JSONL line of 40 MB: that line is invalid in one sentence, the others are read, in bounded time and memory', async () => {
    const path = h.tmp.path('huge.jsonl');
    const out = createWriteStream(path);
    out.write('{"clientUserId":"before"}\n{"clientUserId":"huge","firstName":"');
    const piece = 'a'.repeat(1024 * 1024);
    for (let i = 0; i < 40; i++) out.write(piece);
    out.end('"}\n{"clientUserId":"after"}\n');
    await once(out, 'close');

    const run = await bin(['validate', path, '--out', h.tmp.path('out')]);
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(20_000);
    expect(run.maxRssMb).toBeLessThan(300);
    const results = readResults(h.tmp.path('out/results.csv'));
    expect(results.map((r) => [r.line, r.clientUserId, r.outcome])).toEqual([
      ['1', 'before', 'invalid'],
      ['2', '', 'invalid'],
      ['3', 'after', 'invalid'],
    ]);
    expect(results[1]!.error).toBe(
      '(line): is larger than 4 MB (41943078 bytes), more than a payer row can be: check that each object ends with a line break (too large to copy here: fix it in line 2 of huge.jsonl)',
    );
    // The failed file holds the line's note in its place, not the line.
    const failed = readFileSync(h.tmp.path('out/failed-huge.jsonl'), 'utf8').split('\n');
    expect(failed[1]!.length).toBeLessThan(1000);
    expect(JSON.parse(failed[1]!)).toMatchObject({ error: results[1]!.error });
  }, 30_000);

  it('lines just around the cap: one of 4 MB is read, one a byte more is the line problem', async () => {
    const cap = 4 * 1024 * 1024;
    // Two bytes a character: the cap falls inside a character, and the line is cut across many chunks.
    const line = (bytes: number) => `{"clientUserId":"x","notes":"${'é'.repeat((bytes - 31) / 2)}"}`;
    expect(Buffer.byteLength(line(cap - 1))).toBe(cap - 1);
    const path = h.tmp.write('edge.jsonl', `${line(cap - 1)}\n${line(cap + 1)}\r\n{"clientUserId":"y"}`);
    const rows = await rowsOf(path);
    expect(rows.map((r) => [r.line, r.problem?.column])).toEqual([
      [1, 'notes'],
      [2, '(line)'],
      [3, undefined],
    ]);
    expect(rows[0]!.problem?.message).toBe('is 2097136 characters long, at most 10000');
    expect(rows[1]!.problem?.message).toMatch(/^is larger than 4 MB \(4194305 bytes\)/);
  });

  it.each([
    ['guessed', undefined],
    ['named with --encoding', 'windows-1252'],
  ])('Windows-1252 ending in `André` with no line break after it (%s) reads its André', async (_, encoding) => {
    const header = `${PAYER_HEADER.replace('lastName,', '')},lastName`;
    const row = `${payerRow('w-1', { lastName: 'x' }).replace(',x,', ',')},André`;
    const path = h.tmp.write('andre.csv', Buffer.from(`${header}\r\n${row}`, 'latin1'));
    const rows = await rowsOf(path, encoding);
    expect(rows[0]!.cells.find((cell) => cell.column === 'lastName')?.value).toBe('André');
    const { summary } = await h.run({ inputs: [path], command: 'validate', ...(encoding ? { encoding } : {}) });
    expect(summary.exitCode).toBe(0);
    expect(summary.warnings[0]).toMatch(/^andre\.csv: is not UTF-8; read as Windows-1252/);
  });

  it.each([
    [
      'an odd byte at its end',
      [0x41],
      /^u16\.csv:3: is not valid UTF-16LE \(an odd byte at the end, byte \d+ of the file\)/,
    ],
    [
      'a lone surrogate',
      [0x00, 0xd8, 0x41, 0x00],
      /^u16\.csv:3: is not valid UTF-16LE \(a broken character, byte \d+ of the file\)/,
    ],
  ])('UTF-16 with %s: the tool’s own sentence with line and byte', async (_, tail, said) => {
    const text = `${PAYER_HEADER}\r\n${payerRow('u-1')}\r\n`;
    const path = h.tmp.write(
      'u16.csv',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le'), Buffer.from(tail)]),
    );
    await expect(h.run({ inputs: [path], command: 'validate' })).rejects.toMatchObject({
      code: 'E_INPUT',
      message: expect.stringMatching(said),
    });
  });

  it('a quote early in the header and a byte no encoding reads past the first 64 KB: validate and run say the same', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => payerRow(`q-${i}`));
    const header = PAYER_HEADER.replace('firstName', '"fir"st');
    const text = Buffer.concat([
      Buffer.from(`${header}\n${rows.join('\n')}\nx,Lov`),
      Buffer.from([0x81]),
      Buffer.from('lace\n'),
    ]);
    const path = h.tmp.write('mixed.csv', text);
    const validate = await bin(['validate', path, '--out', h.tmp.path('v')]);
    const run = await bin(['run', path, '--sandbox', '--out', h.tmp.path('r')]);
    expect(validate.code).toBe(2);
    expect(run.code).toBe(2);
    expect(validate.said).toHaveLength(1);
    expect(run.said).toEqual(validate.said);
    expect(validate.said[0]).toMatch(/^payer-onboard: mixed\.csv: is not UTF-8, and none of .* \(see line 402\)/);
  }, 20_000);

  it('a quote inside an unquoted cell: a sentence of the tool’s, not the parser’s quoting the cell', async () => {
    const path = h.tmp.write('quote.csv', `${PAYER_HEADER}\n${payerRow('q-1').replace(',Ada,', ',Se"cret,')}\n`);
    const error = await rowsOf(path).catch((e: unknown) => e as Error);
    expect((error as Error).message).toBe(
      'quote.csv:2:3: a quote inside a cell that does not start with one: put the whole cell in quotes and double the quote (`""`), or remove it',
    );
  });

  it.each([
    ['only line breaks', '\n'],
    ['only CR', '\r'],
  ])('a JSONL file of 2 MB of %s is empty: blank lines are counted, not kept', async (_, byte) => {
    const path = h.tmp.write('blank.jsonl', byte.repeat(2 * 1024 * 1024));
    await expect(rowsOf(path)).rejects.toThrow('blank.jsonl: is empty: expected one JSON object per line');
  });

  it('a CSV with 3 million empty lines: skipped by the parser and counted, the rows after them at their own lines', async () => {
    // Each empty line was a record the parser built an error object for: this file took minutes.
    const lines = [PAYER_HEADER, payerRow('u-1'), '\n'.repeat(3_000_000 - 1), payerRow('u-2'), '', ''];
    const path = h.tmp.write('blank.csv', lines.join('\n'));
    const started = Date.now();
    const { summary, results } = await h.run({ inputs: [path], dryRun: true });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(results.map((r) => [r.clientUserId, r.line])).toEqual([
      ['u-1', '2'],
      ['u-2', '3000003'],
    ]);
    expect(summary.warnings).toContainEqual(expect.stringContaining('3000001 blank rows (the first on line 3)'));
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])(
    'empty lines (%s) before a quoted cell of two lines, and at the end: each row at its line, each blank counted once',
    async (_, eol) => {
      const quoted = payerRow('u-2', { addressLine1: `"1 Way${eol}Floor 2"` });
      const path = h.tmp.write(
        'quoted.csv',
        [PAYER_HEADER, '', payerRow('u-1'), '', '', quoted, payerRow('u-3'), '', ''].join(eol),
      );
      const { summary, results } = await h.run({ inputs: [path], dryRun: true });
      expect(results.map((r) => [r.clientUserId, r.line])).toEqual([
        ['u-1', '3'],
        ['u-2', '6'],
        ['u-3', '8'],
      ]);
      expect(summary.warnings).toContainEqual(expect.stringContaining('4 blank rows (the first on line 2)'));
    },
  );

  it('a quote never closed after empty lines: the sentence names the line it opens on', async () => {
    const path = h.tmp.write('open.csv', [PAYER_HEADER, payerRow('u-1'), '', '', `"u-2,${'x'.repeat(10)}`].join('\n'));
    await expect(h.run({ inputs: [path], dryRun: true })).rejects.toThrow(
      'open.csv:5: a quoted field opened here is never closed',
    );
  });

  it('a line of 4 million commas: one sentence naming the line, not gigabytes of columns', async () => {
    const path = h.tmp.write('commas.csv', `clientUserId|email|${','.repeat(4_000_000)}\n${payerRow('u-1')}\n`);
    await expect(h.run({ inputs: [path], dryRun: true })).rejects.toThrow(
      'commas.csv:1: has 4,000,001 cells on this line, more than the 16,384 columns a spreadsheet holds',
    );
  });
});
