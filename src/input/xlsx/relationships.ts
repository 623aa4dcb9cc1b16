import { readXml } from '../package/parseXml.js';
import type { ZipPackage } from '../package/ZipPackage.js';

// How an Open Packaging Conventions package (ECMA-376 Part 2; an .xlsx is one) says where its parts are: each part's
// relationships part names the parts it points at, by type, with targets relative to the part's own folder.

export interface Relationship {
  type: string;
  /** The absolute part name the relationship points at (undefined for an external target such as a web link). */
  part: string | undefined;
}

/** A part's relationships by id; none when it has no relationships part. */
export async function readRelationships(pkg: ZipPackage, sourcePart: string): Promise<Map<string, Relationship>> {
  const relationships = new Map<string, Relationship>();
  const stream = await pkg.open(relsPartOf(sourcePart));
  if (stream === undefined) return relationships;
  await readXml(stream, {
    open(name, a) {
      if (name !== 'Relationship' || a.Id === undefined || a.Target === undefined) return;
      const external = a.TargetMode?.toLowerCase() === 'external';
      // Transitional and Strict OOXML name the same relationship by different URIs that end alike.
      const type = (a.Type ?? '').slice((a.Type ?? '').lastIndexOf('/') + 1);
      relationships.set(a.Id, { type, part: external ? undefined : resolveTarget(sourcePart, a.Target) });
    },
    text() {},
    close() {},
  });
  return relationships;
}

/** The first relationship of a type (`officeDocument`, `sharedStrings`, `styles`) that points into the package. */
export function partOfType(relationships: ReadonlyMap<string, Relationship>, type: string): string | undefined {
  for (const relationship of relationships.values()) {
    if (relationship.type === type && relationship.part !== undefined) return relationship.part;
  }
  return undefined;
}

/** The relationships part of a part: `/xl/workbook.xml` -> `/xl/_rels/workbook.xml.rels`; the package's is `/_rels/.rels`. */
function relsPartOf(partName: string): string {
  const slash = partName.lastIndexOf('/');
  return `${partName.slice(0, slash + 1)}_rels/${partName.slice(slash + 1)}.rels`;
}

/**
 * A relationship target as an absolute part name: `worksheets/sheet1.xml` from `/xl/workbook.xml` is
 * `/xl/worksheets/sheet1.xml`; `/xl/worksheets/sheet1.xml` (as openpyxl writes it) stays itself; `..` steps up.
 */
function resolveTarget(sourcePart: string, target: string): string {
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
