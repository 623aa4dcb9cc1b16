import { describe, expect, it } from 'vitest';
import { marksOf } from '../../src/web/cellMarks.js';

describe('marksOf: which cell a message of results.csv is about', () => {
  const header = ['clientUserId', 'E-mail', 'Date', 'Date of birth', 'beneficiaryType'];

  it('puts each message of the cell at the column it names, the longest name first', () => {
    const error =
      'E-mail: must be a valid e-mail address, got "aa" | Date of birth: must be a date (YYYY-MM-DD) | Date: is odd';
    expect(marksOf(error, header)).toEqual([
      { column: 1, message: 'must be a valid e-mail address, got "aa"' },
      { column: 3, message: 'must be a date (YYYY-MM-DD)' },
      { column: 2, message: 'is odd' },
    ]);
  });

  it('a message naming no column of the header is the whole row’s; an empty cell has none', () => {
    expect(marksOf('(row): has a value in column Q, right of the last header', header)).toEqual([
      { message: '(row): has a value in column Q, right of the last header' },
    ]);
    expect(marksOf('compliance: HTTP 400', header)).toEqual([{ message: 'compliance: HTTP 400' }]);
    expect(marksOf('', header)).toEqual([]);
  });

  it('a column must be followed by ": " to be named (Datex is not Date)', () => {
    expect(marksOf('Datex: nope', header)).toEqual([{ message: 'Datex: nope' }]);
  });
});
