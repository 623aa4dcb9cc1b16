import { pipeline, type Readable, Transform } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';

/**
 * What zlib hands on at a time. Its default, 16 KiB, cuts a 50 MB worksheet into some 3,000 pieces, each paying
 * for a stream hop, a decode and a parser write; at 64 KiB most of that cost is gone. Not more: a cell's text is
 * a slice of its piece's string, and a text kept for long (a remembered value) keeps its whole piece alive.
 */
const INFLATE_CHUNK = 64 * 1024;

/**
 * An Open Packaging Conventions package (an .xlsx is one) read through its zip's central directory, so any part can
 * be opened in any order, whatever order the writer stored them in, and nothing is copied to a temporary file.
 * Part names follow ECMA-376 Part 2: compared case-insensitively, the zip item name being the part name without its
 * leading `/`; a relationship's target is resolved against its source part's folder unless it is absolute.
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
   * The part's bytes, inflated, as a stream; undefined when the package has no such part. yauzl reads the zip and
   * inflates a stored or encrypted part (refusing the latter); a deflated one it hands over raw, to be inflated here
   * in larger pieces, checked against the size the zip declares as yauzl would.
   */
  async open(partName: string): Promise<Readable | undefined> {
    const entry = this.entries.get(partKey(partName));
    if (entry === undefined) return undefined;
    if (entry.compressionMethod !== 8 || entry.isEncrypted()) return this.zip.openReadStreamPromise(entry);
    const raw = await this.zip.openReadStreamPromise(entry, { decodeFileData: false });
    // Errors reach the last stream, which the reader iterates; destroying it tears the others down.
    return pipeline(raw, createInflateRaw({ chunkSize: INFLATE_CHUNK }), sizeCheck(entry.uncompressedSize), () => {});
  }

  /** Closes the file once the streams still open have ended. */
  close(): void {
    this.zip.close();
  }
}

/** Passes bytes on while they stay within `expected`, and fails a part that inflates to more or fewer. */
function sizeCheck(expected: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > expected ? new Error(`part inflates to more than its declared ${expected} bytes`) : null, chunk);
    },
    flush(done) {
      done(seen < expected ? new Error(`part inflates to ${seen} bytes, not its declared ${expected}`) : null);
    },
  });
}

/** A part name (`/xl/workbook.xml`) or zip item name (`xl/workbook.xml`, `XL\Workbook.xml`) as one lookup key. */
function partKey(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}

/** The relationships part of a part: `/xl/workbook.xml` -> `/xl/_rels/workbook.xml.rels`; the package's is `/_rels/.rels`. */
export function relsPartOf(partName: string): string {
  const slash = partName.lastIndexOf('/');
  return `${partName.slice(0, slash + 1)}_rels/${partName.slice(slash + 1)}.rels`;
}

/**
 * A relationship target as an absolute part name: `worksheets/sheet1.xml` from `/xl/workbook.xml` is
 * `/xl/worksheets/sheet1.xml`; `/xl/worksheets/sheet1.xml` (as openpyxl writes it) stays itself; `..` steps up.
 */
export function resolveTarget(sourcePart: string, target: string): string {
  let path = target.replace(/\\/g, '/').replace(/[?#].*$/, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // A lone `%` is no escape: the name is taken as written.
  }
  const base = path.startsWith('/') ? [] : sourcePart.split('/').slice(1, -1);
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') base.pop();
    else base.push(segment);
  }
  return `/${base.join('/')}`;
}
