import { describe, expect, it } from 'vitest';
import { gridRows, gridSection } from '../../src/web/gridSection.js';
import { layout } from '../../src/web/layout.js';
import type { Upload } from '../../src/web/Uploads.js';
import type { UploadTable } from '../../src/web/uploadTable.js';

const TABLE: UploadTable = {
  header: ['clientUserId', 'email', 'Type'],
  rows: [
    { line: 3, texts: ['p-1', 'p1@example.com', 'individual'] },
    { line: 4, texts: ['p-2', '<img src=x onerror=alert(1)>', 'individual'] },
    { line: 5, texts: ['p-3', 'p3@example.com', 'individual'] },
    { line: 6, texts: ['p-4', 'p4@example.com', 'individual'] },
  ],
};
const check = { format: 'xlsx', rows: 4, ok: 3, invalid: 1, payers: 3, withBank: 0, warnings: [] };
// Checked with the mapping: the messages name the columns as the sent file's header has them.
const UPLOAD: Upload = {
  id: 'abcdefghijkl',
  name: 'march.xlsx',
  size: 1,
  at: '',
  mapping: { Type: 'beneficiaryType' },
  leftOut: [6],
  check: {
    ...check,
    problems: [
      { line: '4', clientUserId: 'p-2', error: 'email: must be a valid e-mail address | beneficiaryType: odd' },
    ],
  },
};

describe('the Fix grid', () => {
  it('shows the refused rows, the changed ones and those left out, their marks at the cells named', () => {
    const fixes = [{ line: 5, column: 'email', value: 'p3@example.org', at: '' }];
    const rows = gridRows(UPLOAD, TABLE, fixes);
    expect(rows.map((r) => [r.line, r.out])).toEqual([
      [4, false],
      [5, false],
      [6, true],
    ]);
    expect(rows[0]!.marks).toEqual([
      { column: 1, message: 'must be a valid e-mail address' },
      { column: 2, message: 'odd' },
    ]);
    expect(rows[1]!.texts[1]).toBe('p3@example.org');
  });

  it('every cell is an input labelled by line and column; values and messages are escaped; no inline script or style', () => {
    const page = layout('t', gridSection(UPLOAD, TABLE, [], 'tok'), { csrf: 'tok' }, ['fix.js']);
    expect(page).toContain('aria-label="Line 4, email"');
    expect(page).toContain('value="&lt;img src=x onerror=alert(1)&gt;"');
    expect(page).not.toContain('<img');
    expect(page).toMatch(/id="c-4-1" name="c:4:1"[^>]*aria-invalid="true" aria-describedby="c-4-1-m"/);
    expect(page).toContain('<label class="inline" for="out-6">Leave out line 6</label>');
    expect(page).toContain('<script src="/assets/fix.js" defer></script>');
    // (the cell's text, escaped, is an input's value: not an attribute of its own)
    expect(page.replace(/value="[^"]*"/g, '')).not.toMatch(/<script>|style=|\son[a-z]+=/);
  });
});

describe('the Fix grid, laid out', () => {
  it('shows the columns with a bad cell first, the others after in the file order; a row its own problem under it', () => {
    const upload: Upload = {
      ...UPLOAD,
      leftOut: [],
      check: {
        ...check,
        problems: [
          { line: '4', clientUserId: 'p-2', error: 'beneficiaryType: odd' },
          { line: '5', clientUserId: 'p-3', error: '(row): is not a payer row' },
        ],
      },
    };
    const page = layout('t', gridSection(upload, TABLE, [], 'tok'), { csrf: 'tok' });
    const heads = [...page.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
    expect(heads).toEqual(['Line', 'Leave out', 'Type', 'clientUserId', 'email']);
    // Each cell keeps its column's number, whatever its place.
    expect(page).toMatch(/<tr data-line="4">[\s\S]*?name="c:4:2"[\s\S]*?name="c:4:0"[\s\S]*?name="c:4:1"/);
    // The row's own problem in a line under it, without its `(row)`; a row with none has its line hidden.
    expect(page).toContain(
      '<tr class="row-note" data-note="5"><td colspan="5"><span class="row-marks" id="note-5">is not a payer row</span>',
    );
    expect(page).toContain('<tr class="row-note" data-note="4" hidden>');
    expect(page).toContain('aria-describedby="note-5"');
    // A way past the grid to Send, for the keyboard.
    expect(page).toContain('<a class="skip" href="#send-part">Skip the grid, to Send</a>');
  });
});
