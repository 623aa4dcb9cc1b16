import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BANK_ONLY_FIELDS, PAYER_FIELDS, REQUIRED_PAYER_FIELDS } from '../../src/rows/fields.js';

// The input's guide, where the README's column lists are.
const README = readFileSync(new URL('../../docs/input.md', import.meta.url), 'utf8').replace(/\n\s*/g, ' ');

/** The backquoted, comma-separated list after `label` in the README's input section. */
function listAfter(label: string): string[] {
  const match = new RegExp(`${label}\`([^\`]+)\``).exec(README);
  if (!match) throw new Error(`README has no list after "${label}"`);
  return match[1]!.split(',').map((name) => name.trim());
}

describe("the README's column lists are the tool's", () => {
  it('required payer columns (ssn among them), then the optional ones', () => {
    expect(listAfter('- payer, required: ')).toEqual([...REQUIRED_PAYER_FIELDS]);
    expect(listAfter('; optional: ').sort()).toEqual(
      PAYER_FIELDS.filter((f) => !REQUIRED_PAYER_FIELDS.includes(f)).sort(),
    );
  });

  it('bank columns', () => {
    expect(listAfter('- bank: ')).toEqual([...BANK_ONLY_FIELDS]);
  });
});
