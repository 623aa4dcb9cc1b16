import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadColumnMap } from '../rows/columns.js';

/**
 * The column mappings people saved on the web page (`.web/mappings/<hash>.json`, mode 0600), each the JSON `--map`
 * reads (`{"Type": "beneficiaryType"}`), kept by a hash of the header row it was made for: the next file with that
 * same header gets it.
 */
export class Mappings {
  constructor(private readonly dir: string) {}

  /** The key of a header: its columns as written, in order (a column added or moved is another header). */
  static keyOf(header: readonly string[]): string {
    return createHash('sha256').update(JSON.stringify(header)).digest('hex').slice(0, 32);
  }

  /** The mapping saved for this header, if one was and `--map` still takes it (a field renamed since is dropped). */
  get(header: readonly string[]): Record<string, string> | undefined {
    const path = join(this.dir, `${Mappings.keyOf(header)}.json`);
    if (!existsSync(path)) return undefined;
    try {
      const text = readFileSync(path, 'utf8');
      loadColumnMap(text, this.dir);
      return JSON.parse(text) as Record<string, string>;
    } catch {
      return undefined;
    }
  }

  save(header: readonly string[], mapping: Readonly<Record<string, string>>): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, `${Mappings.keyOf(header)}.json`);
    writeFileSync(path, `${JSON.stringify(mapping, null, 2)}\n`, { mode: 0o600 });
  }
}
