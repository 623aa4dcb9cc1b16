import { describe, expect, it } from 'vitest';
import { toText as text } from '../../src/core/html.js';
import { dateSection, inIsoDates, onlyReading, postedDateFormat } from '../../src/web/dateChoice.js';
import type { UploadTable } from '../../src/web/uploadTable.js';

// The Map step's date format: guessed only where the dates read one way, asked where they read more, and the file
// sent written in YYYY-MM-DD, which the inbox reads whatever its options.
const table = (dates: string[], header = ['Kunden-ID', 'Geburtsdatum', 'Notes']): UploadTable => ({
  header,
  rows: dates.map((date, i) => ({ line: i + 2, texts: [`k-${i}`, date, '01/02/2000'] })),
});

describe('the date format of an upload', () => {
  it('reads it one way where one date can be read only that way; the other columns are not dates', () => {
    expect(onlyReading(table(['05/06/1980', '14/07/1982']), {})).toBe('DD/MM/YYYY');
    expect(onlyReading(table(['05/06/1980', '12/31/1982']), {})).toBe('MM/DD/YYYY');
    expect(onlyReading(table(['05.06.1980', '14.07.1982']), {})).toBe('DD.MM.YYYY');
    expect(onlyReading(table(['1980/12/31']), {})).toBe('YYYY/MM/DD');
    // Either way, two ways at once, or no way at all: nothing is guessed.
    expect(onlyReading(table(['05/06/1980']), {})).toBeUndefined();
    expect(onlyReading(table(['14/07/1982', '12/31/1982']), {})).toBeUndefined();
    expect(onlyReading(table(['31.02.1990']), {})).toBeUndefined();
    expect(onlyReading(table(['1980-06-05']), {})).toBeUndefined();
  });

  it('goes by the columns read as dates, the person’s mapping too', () => {
    const born = table(['14/07/1982'], ['Kunden-ID', 'Born on', 'Notes']);
    expect(onlyReading(born, {})).toBeUndefined();
    expect(onlyReading(born, { 'Born on': 'dateOfBirth' })).toBe('DD/MM/YYYY');
  });

  it('the Map step: the guess preselected and said; a choice with nothing preselected where the dates read either way', () => {
    const guessed = text(dateSection(table(['14/07/1982']), {}, { format: 'DD/MM/YYYY', by: 'guess' }));
    expect(guessed).toContain(
      'The dates are written day first (14/07/1982 is 14 July 1982): they can be read only that way, so they are read as DD/MM/YYYY.',
    );
    expect(guessed).toContain(
      '<option value="DD/MM/YYYY" selected>Day first: DD/MM/YYYY (14/07/1982 is 14 July 1982)</option>',
    );
    expect(guessed).not.toContain('disabled');

    const asked = text(dateSection(table(['05/06/1980']), {}));
    expect(asked).toContain('<option value="" disabled selected>Choose how the dates are written</option>');
    expect(asked).toContain('05/06/1980 is 5 June 1980 day first, 6 May 1980 month first.');
    expect(asked).not.toMatch(/value="[A-Z/]+" selected/);

    expect(text(dateSection(table(['1980-06-05']), {}))).toBe('');
  });

  it('takes a posted format as --date-format does, YYYY-MM-DD as none, and nothing posted as nothing chosen', () => {
    expect(postedDateFormat({ dateFormat: 'dd.mm.yyyy' })).toBe('DD.MM.YYYY');
    expect(postedDateFormat({ dateFormat: 'YYYY-MM-DD' })).toBeNull();
    expect(postedDateFormat({})).toBeUndefined();
    expect(postedDateFormat({ dateFormat: 'DD/MM' })).toBeUndefined();
  });

  it('the file sent has its dates, and the dates the person typed, in YYYY-MM-DD; what the format does not read stays', () => {
    const rows = table(['14/07/1982', '31/02/1990', '1980-06-05']);
    const at = '2026-01-01T00:00:00.000Z';
    const edits = inIsoDates(rows, {
      mapping: {},
      fixes: [{ line: 3, column: 'Geburtsdatum', value: '28/02/1990', at }],
      leftOut: [],
      dateFormat: 'DD/MM/YYYY',
    });
    expect(rows.rows.map((r) => r.texts[1])).toEqual(['1982-07-14', '31/02/1990', '1980-06-05']);
    // Not a date column: as it was.
    expect(rows.rows.map((r) => r.texts[2])).toEqual(['01/02/2000', '01/02/2000', '01/02/2000']);
    expect(edits.fixes.map((f) => f.value)).toEqual(['1990-02-28']);
  });
});
