import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, PAYER_HEADER, payerRow, payersCsv } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

const failedText = (path: string) => readFileSync(path);

describe('CSV as Excel saves it', () => {
  it('reads Windows-1252 (Müller), warns once which encoding it assumed, writes the failed file as UTF-8 with a BOM', async () => {
    const text = `${PAYER_HEADER}\r\n${payerRow('w-1', { lastName: 'Müller', city: 'Zürich' })}\r\n${payerRow('w-2', { lastName: 'Groß', country: 'XX' })}\r\n`;
    const input = h.tmp.write('payers.csv', Buffer.from(text, 'latin1')); // ü, ß: one byte each, as Windows-1252
    const { summary, stderr, results } = await h.run({ inputs: [input] });

    expect(h.sandbox.payer('w-1')!.request).toMatchObject({ lastName: 'Müller', city: 'Zürich' });
    const warning =
      'payers.csv: is not UTF-8; read as Windows-1252 (what Excel on Windows writes for "CSV (Comma delimited)"): if names look wrong, give its encoding with --encoding (windows-1252, macintosh, iso-8859-2, windows-1250, ...). Its failed rows are written back as UTF-8 with a byte order mark, which Excel opens correctly';
    expect(summary.warnings).toEqual([warning]);
    expect(stderr.split(warning).length - 1).toBe(1);
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'invalid']);

    const failed = failedText(summary.outputs.failed[0]!);
    expect([...failed.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(failed.toString('utf8')).toContain(',Groß,');
    expect(failed.toString('utf8')).toContain('\r\n');
  });

  it('reads Windows-1252 whose first accented letter comes after the first 64 KB', async () => {
    const ids = Array.from({ length: 400 }, (_, i) => `a-${i}`);
    const text = `${payersCsv(ids)}${payerRow('late', { lastName: 'Müller' })}\n`;
    const input = h.tmp.write('big.csv', Buffer.from(text, 'latin1'));
    expect(text.length).toBeGreaterThan(64 * 1024);
    const { summary } = await h.run({ inputs: [input], command: 'validate' });
    expect(summary.rows.ok).toBe(401);
    expect(summary.warnings[0]).toMatch(/^big\.csv: is not UTF-8; read as Windows-1252/);
  });

  it('validate reads a file once: a failed row before the first Windows-1252 letter still gets its BOM; --encoding is named', async () => {
    const ids = Array.from({ length: 400 }, (_, i) => `a-${i}`);
    const text = `${payersCsv(ids)}${payerRow('bad', { country: 'XX' })}\n${payerRow('late', { lastName: 'Müller' })}\n`;
    const input = h.tmp.write('late.csv', Buffer.from(text, 'latin1'));
    const guessed = await h.run({ inputs: [input], command: 'validate' });
    expect(guessed.results.map((r) => r.outcome).filter((o) => o !== 'ok')).toEqual(['invalid']);
    const failed = failedText(guessed.summary.outputs.failed[0]!);
    expect([...failed.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(guessed.summary.warnings).toHaveLength(1);
    expect(guessed.summary.warnings[0]).toMatch(/^late\.csv: is not UTF-8; read as Windows-1252 \(what Excel/);
    const named = await h.run({ inputs: [input], command: 'validate', encoding: 'windows-1252' });
    expect(named.summary.warnings[0]).toMatch(
      /^late\.csv: is not UTF-8; read as Windows-1252 \(--encoding\)\. Its failed/,
    );
  });

  it.each([
    ['utf-16le', Buffer.from([0xff, 0xfe])],
    ['utf-16be', Buffer.from([0xfe, 0xff])],
  ])('reads %s with its byte order mark (Excel\'s "Unicode text", tab-separated)', async (encoding, bom) => {
    const text = `${PAYER_HEADER}\r\n${payerRow('u-1', { lastName: 'Ørsted' })}\r\n`.replace(/,/g, '\t');
    const le = Buffer.from(text, 'utf16le');
    const body = encoding === 'utf-16le' ? le : Buffer.from(le).swap16();
    const input = h.tmp.write('payers.txt', Buffer.concat([bom, body]));
    const { summary } = await h.run({ inputs: [input] });
    expect(summary.exitCode).toBe(0);
    expect(h.sandbox.payer('u-1')!.request).toMatchObject({ lastName: 'Ørsted', phone: '+12175550100' });
    expect(summary.warnings).toEqual([
      expect.stringContaining(
        `payers.txt: is not UTF-8; read as UTF-16 (${encoding === 'utf-16le' ? 'little' : 'big'}-endian, from its byte order mark)`,
      ),
    ]);
  });

  it('reads `;` with a UTF-8 BOM and CRLF, with no warning, and writes failed rows back the same way', async () => {
    const rows = [PAYER_HEADER, payerRow('s-1', { lastName: 'Brontë' }), payerRow('s-2', { email: 'nope' })].map(
      (line) => line.replace(/,/g, ';'),
    );
    const input = h.tmp.write('payers.csv', `\uFEFF${rows.join('\r\n')}\r\n`);
    const { summary, results } = await h.run({ inputs: [input] });
    expect(results.map((r) => r.outcome)).toEqual(['ok', 'invalid']);
    expect(summary.warnings).toEqual([]);
    expect(h.sandbox.payer('s-1')!.request).toMatchObject({ lastName: 'Brontë' });
    const failed = failedText(summary.outputs.failed[0]!).toString('utf8');
    expect(failed.startsWith(`\uFEFF${PAYER_HEADER.replace(/,/g, ';')};error;completedSteps\r\n`)).toBe(true);
    expect(failed).toContain('s-2;nope;');
  });
});
