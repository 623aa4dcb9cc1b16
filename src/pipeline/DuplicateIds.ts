/**
 * Finds payer rows that repeat an earlier row's clientUserId (design.md §3: the later one is invalid, naming the
 * earlier line). Pass 1 needs every id seen so far; pass 2 only needs the answers pass 1 found. So after pass 1
 * `freeze()` drops the map of ids, which is the one thing here that grows with the file, before anything is sent.
 */
export class DuplicateIds {
  /** id -> where first seen, as sourceIndex * 2^32 + line: a number costs far less than a "file:line" string. */
  private firstSeen: Map<string, number> | undefined = new Map();
  /** "source:line" of each repeating row -> "source:line" of the row it repeats. */
  private readonly repeats = new Map<string, string>();
  private readonly sources: string[] = [];

  /** Where the same id was seen first, as "source:line", or undefined when this row is the first. */
  check(id: string, source: string, line: number): string | undefined {
    if (this.firstSeen === undefined) return this.repeats.size === 0 ? undefined : this.repeats.get(`${source}:${line}`);
    let index = this.sources.indexOf(source);
    if (index < 0) index = this.sources.push(source) - 1;
    const first = this.firstSeen.get(id);
    if (first === undefined) {
      this.firstSeen.set(id, index * 2 ** 32 + line);
      return undefined;
    }
    const earlier = `${this.sources[Math.floor(first / 2 ** 32)]}:${first % 2 ** 32}`;
    const here = `${source}:${line}`;
    if (earlier === here) return undefined; // the same row read again
    this.repeats.set(here, earlier);
    return earlier;
  }

  freeze(): void {
    this.firstSeen = undefined;
  }
}
