import { describe, expect, it } from 'vitest';
import { DecodeText } from '../../src/input/decodeText.js';
import { DecodeUtf8 } from '../../src/input/decodeUtf8.js';

/** Feeds `bytes` to a decoder in chunks cut at `cuts`, and gives what came out as text, or the error's message. */
async function through(decoder: DecodeText | DecodeUtf8, bytes: Buffer, cuts: number[]): Promise<string> {
  const out: Buffer[] = [];
  decoder.on('data', (chunk: Buffer | string) => out.push(Buffer.from(chunk)));
  const done = new Promise<string>((resolve) => {
    decoder.on('end', () =>
      resolve(
        Buffer.concat(out)
          .toString('utf8')
          .replace(/^\uFEFF/, ''),
      ),
    );
    decoder.on('error', (error) => resolve(`error: ${error.message}`));
  });
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    decoder.write(bytes.subarray(from, cut));
    from = cut;
  }
  decoder.end();
  return done;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

// UTF-8 goes through DecodeText as the bytes it is: the text, and every error with its line and column, must be
// what decoding it (DecodeUtf8, as JSONL reads) gives, wherever the chunks are cut.
describe('DecodeText passes UTF-8 on as bytes, the same text and errors as decoding it', () => {
  const cases: Array<[string, Buffer]> = [
    ['ASCII', utf8('a,b\n1,2\n')],
    ['letters of 2, 3 and 4 bytes', utf8('name\nMüller\n€ 5\n𝄞 clef\nend')],
    ['a BOM', utf8('\uFEFFname\nGarcía\n')],
    ['a bad byte after UTF-8', Buffer.concat([utf8('a\nMü\nxy'), Buffer.from([0xff]), utf8('z\n')])],
    ['a character cut short by the end of the file', Buffer.concat([utf8('a\nGarcía\nb'), Buffer.from([0xc3])])],
    ["a bad byte on a BOM file's first line", Buffer.concat([utf8('\uFEFFab€c'), Buffer.from([0xc3, 0x28])])],
  ];
  for (const [name, bytes] of cases) {
    it(name, async () => {
      const expected = await through(new DecodeUtf8('f.csv'), bytes, []);
      for (let cut = 1; cut < bytes.length; cut++) {
        for (const cuts of [[cut], [cut, Math.min(bytes.length, cut + 1)]]) {
          const got = await through(new DecodeText('f.csv', { encoding: 'utf-8' }), bytes, cuts);
          expect({ cuts, got }).toEqual({ cuts, got: expected });
        }
      }
    });
  }

  it('a file whose first non-ASCII byte is not UTF-8 is read in its encoding, wherever the chunks are cut', async () => {
    for (const text of ['a\nMüller\nZürich\n', 'a\nMü', 'a\u00e9\n']) {
      const bytes = Buffer.from(text, 'latin1');
      for (let cut = 1; cut < bytes.length; cut++) {
        const got = await through(new DecodeText('f.csv', { encoding: 'windows-1252' }), bytes, [cut]);
        expect({ cut, got }).toEqual({ cut, got: text });
      }
    }
  });
});
