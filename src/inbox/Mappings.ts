import { createHash } from 'node:crypto';
import { DATE_FORMAT, type DateFormat } from '../core/types.js';
import { loadColumnMap } from '../rows/columns.js';
import { normalizeName } from '../rows/synonyms.js';
import type { WebTables } from '../store/Store.js';

/** What was saved on the web page for a header: each column's field (`--map`'s JSON), and how its dates are written. */
export interface SavedMapping {
  columns: Record<string, string>;
  /** `--date-format`; absent: dates as YYYY-MM-DD only. */
  dateFormat?: DateFormat;
}

/**
 * The column mappings people saved on the web page, in the store, each kept by the set of its header's column names:
 * the next file with those columns, in any order and however they are spelt (`Kunden-ID`, `kunden id`), gets it, on
 * the page of any serve that shares the store and in the inbox, which runs a file with it.
 */
export class Mappings {
  constructor(private readonly web: WebTables) {}

  /**
   * The key of a header: its column names as the tool compares them (no case, accents or punctuation), each once, in
   * no order. The tool's own columns of a failed file (`error`, `completedSteps`) are left out: fixed and dropped in
   * again, it is read as its file was.
   */
  static keyOf(header: readonly string[]): string {
    const names = new Set(header.map(normalizeName).filter((name) => name !== '' && !OWN.has(name)));
    return createHash('sha256')
      .update(JSON.stringify([...names].sort()))
      .digest('hex')
      .slice(0, 32);
  }

  /**
   * The mapping saved for this header, its columns named as this header spells them, if one was and `--map` still
   * takes it (a field renamed since drops it). One saved by an earlier version, for these columns in this order, too.
   */
  async get(header: readonly string[]): Promise<SavedMapping | undefined> {
    const saved = await this.web.mappings();
    const text = saved.get(Mappings.keyOf(header)) ?? saved.get(earlierKey(header));
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text) as Record<string, unknown>;
      // An earlier version kept the columns alone: `{"Type": "beneficiaryType"}`.
      const given = (typeof value['columns'] === 'object' ? value['columns'] : value) as Record<string, string>;
      loadColumnMap(JSON.stringify(given), '.');
      const byName = new Map(header.map((column) => [normalizeName(column), column]));
      const columns: Record<string, string> = {};
      for (const [column, field] of Object.entries(given)) {
        const here = byName.get(normalizeName(column));
        if (here !== undefined) columns[here] = field;
      }
      const dateFormat = value['dateFormat'];
      return typeof dateFormat === 'string' && DATE_FORMAT.test(dateFormat) ? { columns, dateFormat } : { columns };
    } catch {
      return undefined;
    }
  }

  async save(header: readonly string[], mapping: SavedMapping): Promise<void> {
    await this.web.putMapping(Mappings.keyOf(header), JSON.stringify(mapping));
  }
}

/** The columns a failed or pending file adds after the input's own. */
const OWN = new Set(['error', 'completedsteps']);

/** The key an earlier version kept a mapping by: the header's columns as written, in order. */
function earlierKey(header: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(header)).digest('hex').slice(0, 32);
}
