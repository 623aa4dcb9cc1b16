import type { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';

/** What a part's reader does with its elements. Names come without their namespace prefix (`x:row` is `row`). */
export interface XmlHandler {
  open(name: string, attributes: Readonly<Record<string, string>>): void;
  text(text: string): void;
  close(name: string): void;
  /**
   * Characters of the current text left out unread: a run of text longer than MAX_TEXT_RUN is not kept, only
   * counted (the text already given is its start). Called before the element around it closes.
   */
  dropped?(count: number): void;
}

/** Thrown for a part that is not well-formed XML, or a package missing a part it must have. */
export class PackageError extends Error {}

/**
 * The longest run of characters between two `<` handed to the XML parser, which holds a text whole until the tag
 * after it: past this, the rest of the run is counted and let go, so a 200 MB cell costs no more memory than a short
 * one. Far above any cell a sheet's reader keeps. A run that is not text (a comment, an attribute value this long)
 * loses its end and is then not well-formed, as such a part deserves.
 */
export const MAX_TEXT_RUN = 1024 * 1024;

/** How long the parsing (and what the caller does with each chunk) may hold the event loop before letting it turn. */
const TURN_EVERY_MS = 50;

/**
 * Feeds a part's XML to `handler`, one chunk of the zip's output at a time, and yields after each chunk so the
 * caller can take what the handler gathered (a worksheet's rows) before more is read: memory holds one chunk.
 * Bytes are decoded as a stream, so a character split between two chunks stays one character. Every
 * TURN_EVERY_MS the event loop gets a turn, so a signal or a timer is heard however long the part.
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
  const runs = new TextRuns(parser, handler);
  let decoder: TextDecoder | undefined;
  let turned = performance.now();
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      // The standard allows UTF-16 parts (with their byte order mark); everything seen in practice is UTF-8.
      decoder ??= new TextDecoder(
        chunk[0] === 0xff && chunk[1] === 0xfe ? 'utf-16le' : chunk[0] === 0xfe ? 'utf-16be' : 'utf-8',
      );
      runs.feed(decoder.decode(chunk, { stream: true }));
      if (failure) throw new PackageError(failure.message);
      yield;
      if (performance.now() - turned > TURN_EVERY_MS) {
        await turn();
        turned = performance.now();
      }
    }
    if (decoder) runs.feed(decoder.decode());
    parser.close();
    if (failure) throw new PackageError(failure.message);
  } finally {
    stream.destroy();
  }
}

/**
 * Writes decoded text to the parser with each run of characters between two `<` cut to MAX_TEXT_RUN: the rest of a
 * longer run is counted, and the count told to the handler after what was kept is parsed, before the `<` that ends
 * the run (which closes the text's element).
 */
class TextRuns {
  /** Characters written since the last `<`. */
  private run = 0;
  private dropping = false;
  private dropped = 0;

  constructor(
    private readonly parser: SaxesParser,
    private readonly handler: XmlHandler,
  ) {}

  feed(text: string): void {
    let at = 0;
    while (at < text.length) {
      if (this.dropping) {
        const tag = text.indexOf('<', at);
        this.dropped += (tag < 0 ? text.length : tag) - at;
        if (tag < 0) return;
        this.handler.dropped?.(this.dropped);
        this.dropping = false;
        this.run = 0;
        at = tag;
      }
      const cut = this.overflowAt(text, at);
      if (cut < 0) {
        this.parser.write(at === 0 ? text : text.slice(at));
        const last = text.lastIndexOf('<');
        this.run = last < at ? this.run + text.length - at : text.length - last - 1;
        return;
      }
      const end = safeCut(text, at, cut);
      if (end > at) this.parser.write(text.slice(at, end));
      this.dropping = true;
      this.dropped = 0;
      at = end;
    }
  }

  /** Where, from `at`, a run first passes MAX_TEXT_RUN; -1 when none does in this text. */
  private overflowAt(text: string, at: number): number {
    let run = this.run;
    let from = at;
    for (;;) {
      const tag = text.indexOf('<', from);
      const end = tag < 0 ? text.length : tag;
      if (run + end - from > MAX_TEXT_RUN) return from + MAX_TEXT_RUN - run;
      // A run that starts in this text fits when the rest of the text does: the usual chunk ends the search here.
      if (tag < 0 || text.length - tag <= MAX_TEXT_RUN) return -1;
      run = 0;
      from = tag + 1;
    }
  }
}

/** `end`, moved back out of an entity (`&amp;` cut to `&am` is not XML) and from between a surrogate pair's halves. */
function safeCut(text: string, from: number, end: number): number {
  const amp = text.lastIndexOf('&', end - 1);
  if (amp >= from) {
    const semicolon = text.indexOf(';', amp);
    if (semicolon < 0 || semicolon >= end) end = amp;
  }
  const code = text.charCodeAt(end - 1);
  return end > from && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** Reads a whole (small) part through `handler`. */
export async function readXml(stream: Readable, handler: XmlHandler): Promise<void> {
  for await (const _ of parseXml(stream, handler));
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}
