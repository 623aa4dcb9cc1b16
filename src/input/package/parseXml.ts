import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';

/** What a part's reader does with its elements. Names come without their namespace prefix (`x:row` is `row`). */
export interface XmlHandler {
  open(name: string, attributes: Readonly<Record<string, string>>): void;
  text(text: string): void;
  close(name: string): void;
}

/** Thrown for a part that is not well-formed XML, or a package missing a part it must have. */
export class PackageError extends Error {}

/**
 * Feeds a part's XML to `handler`, one chunk of the zip's output at a time, and yields after each chunk so the
 * caller can take what the handler gathered (a worksheet's rows) before more is read: memory holds one chunk.
 * Bytes are decoded as a stream, so a character split between two chunks stays one character.
 */
export async function* parseXml(stream: Readable, handler: XmlHandler): AsyncGenerator<void> {
  const parser = new SaxesParser({ position: false });
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => handler.open(localName(tag.name), tag.attributes as Record<string, string>));
  parser.on('text', (text) => handler.text(text));
  parser.on('cdata', (text) => handler.text(text));
  parser.on('closetag', (tag) => handler.close(localName(tag.name)));
  let decoder: TextDecoder | undefined;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      // The standard allows UTF-16 parts (with their byte order mark); everything seen in practice is UTF-8.
      decoder ??= new TextDecoder(
        chunk[0] === 0xff && chunk[1] === 0xfe ? 'utf-16le' : chunk[0] === 0xfe ? 'utf-16be' : 'utf-8',
      );
      parser.write(decoder.decode(chunk, { stream: true }));
      if (failure) throw new PackageError(failure.message);
      yield;
    }
    if (decoder) parser.write(decoder.decode());
    parser.close();
    if (failure) throw new PackageError(failure.message);
  } finally {
    stream.destroy();
  }
}

/** Reads a whole (small) part through `handler`. */
export async function readXml(stream: Readable, handler: XmlHandler): Promise<void> {
  for await (const _ of parseXml(stream, handler));
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}
