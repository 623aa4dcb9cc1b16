import { type Readable, Transform } from 'node:stream';
import yauzl from 'yauzl';

const MB = 1024 * 1024;

/**
 * How far each kind of part may unpack. A worksheet is streamed, so its limit is about time: Excel's 1,048,576 rows
 * of a few columns fit well within 256 MB. Shared strings are held whole (any cell may point at any of them), and
 * the other parts are small in every real workbook.
 */
const PART_LIMITS = { sheet: 256 * MB, sharedStrings: 64 * MB, part: 16 * MB } as const;
export type PartKind = keyof typeof PART_LIMITS;

/**
 * Unpacked to packed, past which a part is a zip bomb rather than a spreadsheet: real sheets pack about 5 to 20 to
 * one. Only for parts past BOMB_FLOOR: a small part of repeated markup may pack better and harms no one.
 */
const BOMB_RATIO = 100;
const BOMB_FLOOR = 8 * MB;

/**
 * A part that unpacks past its limit, or packs like a zip bomb, or a sheet past Excel's own size: refused before (or
 * while) it is unpacked. Not a PackageError: the file is not damaged, only too big.
 */
export class PartTooLargeError extends Error {}

/**
 * A zip of XML parts (an .xlsx is one; an OpenDocument spreadsheet is another) read through its zip's central
 * directory, so any part can be opened in any order, whatever order the writer stored them in, and nothing is copied
 * to a temporary file. Part names are compared case-insensitively, as ECMA-376 Part 2 has them, the zip item name
 * being the part name without its leading `/`.
 */
export class ZipPackage {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly entries: ReadonlyMap<string, yauzl.Entry>,
  ) {}

  static async open(path: string): Promise<ZipPackage> {
    const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
    const entries = new Map<string, yauzl.Entry>();
    try {
      for await (const entry of zip.eachEntry()) {
        if (!entry.fileName.endsWith('/')) entries.set(partKey(entry.fileName), entry);
      }
    } catch (error) {
      zip.close();
      throw error;
    }
    return new ZipPackage(zip, entries);
  }

  has(partName: string): boolean {
    return this.entries.has(partKey(partName));
  }

  /**
   * The part's bytes, inflated, as a stream; undefined when the package has no such part. The sizes the zip declares
   * are checked first, and the bytes counted as they come (a declared size can lie): past the part kind's limit, or
   * past BOMB_RATIO times its packed size, the stream fails with a PartTooLargeError.
   */
  async open(partName: string, kind: PartKind = 'part'): Promise<Readable | undefined> {
    const entry = this.entries.get(partKey(partName));
    if (entry === undefined) return undefined;
    const limit = PART_LIMITS[kind];
    const tooLarge = (size: number) => sizeProblem(partName, kind, size, entry.compressedSize);
    const declared = tooLarge(entry.uncompressedSize);
    if (declared) throw new PartTooLargeError(declared);
    const inflated = await this.zip.openReadStreamPromise(entry);
    let bytes = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        const problem = bytes > BOMB_FLOOR || bytes > limit ? tooLarge(bytes) : undefined;
        done(problem ? new PartTooLargeError(problem) : undefined, problem ? undefined : chunk);
      },
    });
    inflated.on('error', (error) => counted.destroy(error));
    // Reading stops early (a sheet's rows after `</sheetData>`, an error): the inflater goes with it.
    counted.on('close', () => inflated.destroy());
    return inflated.pipe(counted);
  }

  /** Closes the file once the streams still open have ended. */
  close(): void {
    this.zip.close();
  }
}

/** Why a part of `size` unpacked bytes (`packed` in the zip) is refused, or undefined when it is not. */
function sizeProblem(part: string, kind: PartKind, size: number, packed: number): string | undefined {
  const limit = PART_LIMITS[kind];
  const name = part.replace(/^\/+/, '');
  if (size > limit) return `${name} unpacks to more than ${limit / MB} MB, the limit for ${PART_NAMES[kind]}`;
  if (size > BOMB_FLOOR && size > BOMB_RATIO * Math.max(packed, 1))
    return `${name} unpacks to more than ${BOMB_RATIO} times its packed size (${Math.ceil(packed / 1024)} KB), as a zip bomb does`;
  return undefined;
}

const PART_NAMES: Record<PartKind, string> = {
  sheet: 'a sheet',
  sharedStrings: 'the shared strings',
  part: 'such a part',
};

/** A part name (`/xl/workbook.xml`) or zip item name (`xl/workbook.xml`, `XL\Workbook.xml`) as one lookup key. */
function partKey(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}
