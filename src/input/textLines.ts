const BREAK = /\r\n|\n|\r/g;

/**
 * The lines of a text stream, split as readline splits them (`\n`, `\r\n` or a lone `\r`; a last line without a
 * break still counts), pulled one at a time: the source is read only as lines are asked for, and an error of the
 * source is thrown here. Holds the current chunk and one partial line.
 */
export async function* textLines(text: AsyncIterable<string>): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of text) {
    rest += chunk;
    BREAK.lastIndex = 0;
    let start = 0;
    for (let found = BREAK.exec(rest); found !== null; found = BREAK.exec(rest)) {
      // A `\r` that ends the chunk may be the first half of a `\r\n` split across chunks: wait for the next one.
      if (found[0] === '\r' && found.index === rest.length - 1) break;
      yield rest.slice(start, found.index);
      start = BREAK.lastIndex;
    }
    rest = rest.slice(start);
  }
  if (rest === '\r') yield '';
  else if (rest !== '') yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}
