// A person's whole name, in one column (QuickBooks exports `Full Name`), as the first name and the last: only where a
// person said to split it (`--split-name`, or its choice on the web page), never guessed.

/** A whole name's first and last name, or undefined for one that is a single word. */
export function splitName(name: string): { first: string; last: string } | undefined {
  const comma = name.indexOf(',');
  if (comma >= 0) {
    const last = name.slice(0, comma).trim();
    const first = name.slice(comma + 1).trim();
    return last !== '' && first !== '' ? { first, last } : undefined;
  }
  const words = name.split(/\s+/);
  if (words.length < 2) return undefined;
  return { first: words.slice(0, -1).join(' '), last: words.at(-1)! };
}
