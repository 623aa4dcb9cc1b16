import { createHash } from 'node:crypto';
import { loadColumnMap } from '../rows/columns.js';
import type { WebTables } from '../store/Store.js';

/**
 * The column mappings people saved on the web page, in the store, each the JSON `--map` reads
 * (`{"Type": "beneficiaryType"}`), kept by a hash of the header row it was made for: the next file with that same
 * header gets it, on any serve that shares the store.
 */
export class Mappings {
  constructor(private readonly web: WebTables) {}

  /** The key of a header: its columns as written, in order (a column added or moved is another header). */
  static keyOf(header: readonly string[]): string {
    return createHash('sha256').update(JSON.stringify(header)).digest('hex').slice(0, 32);
  }

  /** The mapping saved for this header, if one was and `--map` still takes it (a field renamed since is dropped). */
  async get(header: readonly string[]): Promise<Record<string, string> | undefined> {
    const text = (await this.web.mappings()).get(Mappings.keyOf(header));
    if (text === undefined) return undefined;
    try {
      loadColumnMap(text, '.');
      return JSON.parse(text) as Record<string, string>;
    } catch {
      return undefined;
    }
  }

  async save(header: readonly string[], mapping: Readonly<Record<string, string>>): Promise<void> {
    await this.web.putMapping(Mappings.keyOf(header), JSON.stringify(mapping));
  }
}
