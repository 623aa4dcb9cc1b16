import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

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

  /** The part's bytes, inflated, as a stream; undefined when the package has no such part. */
  async open(partName: string): Promise<Readable | undefined> {
    const entry = this.entries.get(partKey(partName));
    return entry === undefined ? undefined : this.zip.openReadStreamPromise(entry);
  }

  /** Closes the file once the streams still open have ended. */
  close(): void {
    this.zip.close();
  }
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
