import { describe, expect, it } from 'vitest';
import { type LongLine, textLines } from '../../src/input/decodeUtf8.js';

async function split(...chunks: string[]): Promise<Array<string | LongLine>> {
  const lines: Array<string | LongLine> = [];
  for await (const line of textLines(
    (async function* () {
      yield* chunks;
    })(),
  ))
    lines.push(line);
  return lines;
}

describe('textLines', () => {
  it('splits on LF, CRLF and a lone CR, as readline does, keeping blank lines for the line count', async () => {
    expect(await split('a\nb\r\nc\rd')).toEqual(['a', 'b', 'c', 'd']);
    expect(await split('a\n\nb\n')).toEqual(['a', '', 'b']);
    expect(await split('')).toEqual([]);
  });

  it('joins a line cut across chunks, and a CRLF cut between its two halves', async () => {
    expect(await split('{"a":', '1}\r', '\n{"b":2}\r', '\n')).toEqual(['{"a":1}', '{"b":2}']);
    expect(await split('x\r', 'y')).toEqual(['x', 'y']);
    expect(await split('x\r')).toEqual(['x']);
  });

  it("throws the source's error where the lines are read", async () => {
    const failing = (async function* () {
      yield 'a\nb';
      throw new Error('disk gone');
    })();
    const seen: Array<string | LongLine> = [];
    await expect(
      (async () => {
        for await (const line of textLines(failing)) seen.push(line);
      })(),
    ).rejects.toThrow('disk gone');
    expect(seen).toEqual(['a']);
  });
});
