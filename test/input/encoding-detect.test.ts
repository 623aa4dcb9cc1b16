import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { EncodingEvidence, singleByteDecoder } from '../../src/input/encodings.js';
import { openInput } from '../../src/input/openInput.js';
import { harness, PAYER_HEADER, payerRow } from '../helpers/runHarness.js';

let h: Awaited<ReturnType<typeof harness>>;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.close();
});

// The bytes of each letter in each encoding, from the code charts: written out rather than made by the decoder under test.
const BYTES: Record<string, Record<string, number>> = {
  'windows-1252': { ü: 0xfc, ë: 0xeb, ç: 0xe7, Ø: 0xd8, '’': 0x92, ñ: 0xf1 },
  macintosh: { ü: 0x9f, ë: 0x91, ç: 0x8d, Ø: 0xaf, '’': 0xd5, ñ: 0x96, í: 0x92 },
  'iso-8859-2': { ü: 0xfc, ë: 0xeb, ç: 0xe7, Ł: 0xa3, ř: 0xf8, á: 0xe1 },
  'windows-1250': { Ś: 0x8c, ą: 0xb9, Ł: 0xa3 },
};

function encode(text: string, encoding: string): Buffer {
  return Buffer.from(
    [...text].map((char) => {
      const byte = char.charCodeAt(0) < 0x80 ? char.charCodeAt(0) : BYTES[encoding]![char];
      if (byte === undefined) throw new Error(`${char} has no byte in ${encoding} here`);
      return byte;
    }),
  );
}

/** A payers file of one row per last name, ids n-1, n-2, ... */
function payers(lastNames: string[], encoding: string): Buffer {
  const rows = lastNames.map((lastName, i) => payerRow(`n-${i + 1}`, { lastName }));
  return encode(`${PAYER_HEADER}\r\n${rows.join('\r\n')}\r\n`, encoding);
}

const sentNames = (count: number) =>
  Array.from({ length: count }, (_, i) => (h.sandbox.payer(`n-${i + 1}`)!.request as { lastName: string }).lastName);

async function refusal(promise: Promise<unknown>): Promise<InputError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return error as InputError;
}

describe('a CSV that is not UTF-8: its encoding told from the whole file, names sent as written', () => {
  it.each([
    ['windows-1252', ['Müller', 'Zoë', 'François', 'Ødegaard', 'O’Brien', 'Peña'], 'Windows-1252'],
    ['macintosh', ['Müller', 'Zoë', 'François', 'Ødegaard', 'O’Brien'], 'Mac Roman'],
    ['iso-8859-2', ['Müller', 'Zoë', 'François', 'Łukasz', 'Dvořák'], 'ISO-8859-2'],
  ])('%s', async (encoding, names, label) => {
    const input = h.tmp.write('payers.csv', payers(names, encoding));
    const { summary } = await h.run({ inputs: [input] });
    expect(summary.exitCode).toBe(0);
    expect(sentNames(names.length)).toEqual(names);
    expect(summary.warnings).toEqual([
      expect.stringMatching(new RegExp(`^payers\\.csv: is not UTF-8; read as ${label} `)),
    ]);
  });

  it("Mac Roman with only `Müller` (the issue's file) is read as Mac Roman, not as `MŸller`", async () => {
    const input = h.tmp.write('mac.csv', payers(['Müller'], 'macintosh'));
    const { summary } = await h.run({ inputs: [input] });
    expect(sentNames(1)).toEqual(['Müller']);
    expect(summary.warnings[0]).toMatch(/^mac\.csv: is not UTF-8; read as Mac Roman \(what Excel for Mac writes/);
  });

  it('refuses (exit 2) where two encodings read the file equally well, and --encoding settles it', async () => {
    // Mac Roman 0xAF is Ø; ISO-8859-2 reads it as Ż: both make a name.
    const input = h.tmp.write('nordic.csv', payers(['Ødegaard'], 'macintosh'));
    const error = await refusal(h.run({ inputs: [input] }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      'nordic.csv: is not UTF-8, and Mac Roman and ISO-8859-2 read it equally well but differently (see line 2): run it again with --encoding macintosh or --encoding iso-8859-2, whichever shows the names right, or save it as "CSV UTF-8"',
    );
    expect(h.sandbox.stats().requests).toBe(0);

    const { summary } = await h.run({ inputs: [input], encoding: 'mac' });
    expect(sentNames(1)).toEqual(['Ødegaard']);
    expect(summary.warnings[0]).toMatch(
      /^nordic\.csv: is not UTF-8; read as Mac Roman \(--encoding\)\. Its failed rows/,
    );
  });

  it('refuses a file none of the guessed encodings reads cleanly (Windows-1250), and reads it with --encoding', async () => {
    const input = h.tmp.write('polish.csv', payers(['Świątek', 'Łukasz'], 'windows-1250'));
    const error = await refusal(h.run({ inputs: [input] }));
    expect(error.message).toBe(
      'polish.csv: is not UTF-8, and none of Windows-1252, Mac Roman, ISO-8859-2, ISO-8859-15 reads it as plain text (see line 2): name its encoding with --encoding (such as --encoding windows-1250), or save it as "CSV UTF-8"',
    );
    await h.run({ inputs: [input], encoding: 'windows-1250' });
    expect(sentNames(2)).toEqual(['Świątek', 'Łukasz']);
  });

  it('--encoding leaves a UTF-8 file (and one with a byte order mark) as it is', async () => {
    const utf8 = h.tmp.write('utf8.csv', `${PAYER_HEADER}\n${payerRow('n-1', { lastName: 'Müller' })}\n`);
    const { summary } = await h.run({ inputs: [utf8], encoding: 'macintosh' });
    expect(sentNames(1)).toEqual(['Müller']);
    expect(summary.warnings).toEqual([]);
  });

  it('--encoding utf-8 refuses a file that is not UTF-8 instead of guessing', async () => {
    const input = h.tmp.write('strict.csv', payers(['Müller'], 'windows-1252'));
    const error = await refusal(h.run({ inputs: [input], encoding: 'UTF8' }));
    expect(error.message).toBe('strict.csv:2:26: is not valid UTF-8 (byte 0xfc): save the file as "CSV UTF-8"');
  });

  it('--encoding names an encoding of one byte a character', async () => {
    const input = h.tmp.write('p.csv', `${PAYER_HEADER}\n${payerRow('n-1')}\n`);
    await expect(h.run({ inputs: [input], encoding: 'utf-16le' })).rejects.toThrow(
      '--encoding: "utf-16le" is not a single-byte encoding such as windows-1252, macintosh or iso-8859-2',
    );
  });
});

describe('the rule, on the bytes alone', () => {
  const verdict = (text: string, encoding: string) => {
    const evidence = new EncodingEvidence();
    evidence.add(encode(`id,name\n1,${text},x\n`, encoding));
    evidence.end();
    return evidence.verdict();
  };

  it.each([
    // A smart quote between lower-case letters reads as a Mac Roman letter just as well (`Bobís`): a person must say.
    [
      'Bob’s',
      'windows-1252',
      { unsure: expect.stringContaining('Windows-1252 and Mac Roman read it equally well but differently') },
    ],
    ['O’Brien', 'windows-1252', { encoding: 'windows-1252' }],
    ['Zoë', 'macintosh', { encoding: 'macintosh' }],
    ['François', 'macintosh', { encoding: 'macintosh' }],
    ['Bob’s', 'macintosh', { encoding: 'macintosh' }],
    ['Łukasz', 'iso-8859-2', { encoding: 'iso-8859-2' }],
    // Where every letter reads as a letter in both (`Dvořák`, `Dvoøák`), nothing tells them apart: refused, not guessed.
    [
      'Dvořák',
      'iso-8859-2',
      { unsure: expect.stringContaining('Windows-1252 and ISO-8859-2 read it equally well but differently') },
    ],
    // What the bytes of Mac Roman's `Muñoz` and `García` are in Windows-1252 (`Mu–oz`, `Garc’a`) reads as marks in words.
    ['Muñoz', 'macintosh', { unsure: expect.stringContaining('Windows-1252 and Mac Roman read it equally well') }],
    ['García', 'macintosh', { unsure: expect.stringContaining('Windows-1252 and Mac Roman read it equally well') }],
    ['Ødegaard', 'macintosh', { unsure: expect.stringContaining('Mac Roman and ISO-8859-2 read it equally well') }],
  ])('%s in %s', (text, encoding, expected) => {
    expect(verdict(text, encoding)).toMatchObject(expected);
  });

  it('Windows-1252 0x80-0x9F decode as Windows-1252, not as Latin-1 control characters', () => {
    expect(singleByteDecoder('windows-1252').decode(Uint8Array.of(0x80, 0x92, 0x96, 0x9f, 0x81))).toBe('€’–Ÿ\x81');
  });
});

describe('what settles an encoding the tool cannot tell, in the words of who reads it', () => {
  it('a terminal is told of --encoding; the page and the inbox, with no such flag, to save the file as UTF-8', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enc-'));
    try {
      // Mac Roman's `García` is Windows-1252's `Garc’a`: both read as words.
      const path = join(dir, 'payers.csv');
      writeFileSync(
        path,
        Buffer.concat([Buffer.from('clientUserId,lastName\nu-1,Garc'), Buffer.of(0x92), Buffer.from('a\n')]),
      );
      const told = async (readers?: 'page' | 'inbox') =>
        openInput(path, readers ? { readers } : {}).then(
          () => '',
          (error: Error) => error.message,
        );
      expect(await told()).toMatch(/: run it again with --encoding windows-1252 or --encoding macintosh, whichever/);
      expect(await told('page')).toMatch(
        /read it equally well but differently \(see line 2\): save it as "CSV UTF-8" in its spreadsheet program and upload it again$/,
      );
      expect(await told('inbox')).toMatch(/and drop it into the inbox again$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
