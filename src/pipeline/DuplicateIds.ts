import { grown } from '../compact/grown.js';
import { IdTable } from '../compact/IdTable.js';

/** A place as one number: source index * 2^32 + line (exact in a double for any line a file can have). */
const SOURCE_UNIT = 2 ** 32;

/**
 * Finds payer rows that repeat an earlier row's clientUserId (design.md §3: the later one is invalid, naming the
 * earlier line). Pass 1 needs every id seen so far, the one thing in `validate` that grows with the file: they sit
 * in an IdTable (about 28 bytes an id, outside the V8 heap) rather than a Map of strings (about 100 on it, which V8
 * then lets grow fourfold as garbage before it collects). Ids are compared byte for byte, never by hash alone, so a
 * distinct id is never called a repeat.
 *
 * Pass 2 only needs the repeats pass 1 found, so `freeze()` drops the ids and keeps those, 16 bytes a repeat.
 */
export class DuplicateIds {
  private readonly sources: string[] = [];
  private ids: IdTable | undefined = new IdTable();
  /** Ids are added file by file: the source of each run of table positions, by the run's first position. */
  private readonly runs: Array<{ from: number; source: number }> = [];
  /** Each repeating row's place, and the place of the row it repeats; in order of `at` once frozen. */
  private repeatAt = new Float64Array(64);
  private repeatOf = new Float64Array(64);
  private repeats = 0;

  /** Where the same id was seen first, as "source:line", or undefined when this row is the first. */
  check(id: string, source: string, line: number): string | undefined {
    const sourceIndex = this.sourceIndex(source);
    const here = sourceIndex * SOURCE_UNIT + line;
    if (this.ids === undefined) return this.repeatOfPlace(here);
    const before = this.ids.size;
    const position = this.ids.add(id, line);
    if (this.ids.size > before) {
      if (this.runs.at(-1)?.source !== sourceIndex) this.runs.push({ from: position, source: sourceIndex });
      return undefined;
    }
    const first = this.sourceAt(position) * SOURCE_UNIT + this.ids.lineAt(position);
    if (first === here) return undefined; // the first row itself, read again
    if (this.repeats === this.repeatAt.length) {
      this.repeatAt = grown(this.repeatAt, this.repeats + 1);
      this.repeatOf = grown(this.repeatOf, this.repeats + 1);
    }
    this.repeatAt[this.repeats] = here;
    this.repeatOf[this.repeats] = first;
    this.repeats++;
    return this.describe(first);
  }

  /** After pass 1: forgets every id, keeping only the repeats found, which pass 2 asks about by place. */
  freeze(): void {
    if (this.ids === undefined) return;
    this.ids = undefined;
    const count = this.repeats;
    // Files are read one after another and each in line order, so the repeats are found in order already.
    let order: number[] | undefined;
    for (let i = 1; i < count && order === undefined; i++) {
      if (this.repeatAt[i]! < this.repeatAt[i - 1]!)
        order = Array.from({ length: count }, (_, j) => j).sort((a, b) => this.repeatAt[a]! - this.repeatAt[b]!);
    }
    const at = new Float64Array(count);
    const of = new Float64Array(count);
    for (let to = 0; to < count; to++) {
      const from = order?.[to] ?? to;
      at[to] = this.repeatAt[from]!;
      of[to] = this.repeatOf[from]!;
    }
    this.repeatAt = at;
    this.repeatOf = of;
  }

  private repeatOfPlace(here: number): string | undefined {
    let low = 0;
    let high = this.repeats - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.repeatAt[mid]!;
      if (at === here) return this.describe(this.repeatOf[mid]!);
      if (at < here) low = mid + 1;
      else high = mid - 1;
    }
    return undefined;
  }

  /** The source of the id at a table position: the last run starting at or before it. */
  private sourceAt(position: number): number {
    let low = 0;
    let high = this.runs.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.runs[mid]!.from <= position) low = mid;
      else high = mid - 1;
    }
    return this.runs[low]!.source;
  }

  private sourceIndex(source: string): number {
    const index = this.sources.lastIndexOf(source);
    return index >= 0 ? index : this.sources.push(source) - 1;
  }

  private describe(place: number): string {
    return `${this.sources[Math.floor(place / SOURCE_UNIT)]}:${place % SOURCE_UNIT}`;
  }
}
