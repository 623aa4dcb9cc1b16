/**
 * Who reads what the tool says of a file or a row, and so how its advice is worded: a person at a terminal, who can
 * run the command again with `--map` or `--date-format`; the team's web page, whose Map step chooses columns' fields
 * and the date format and whose grid takes a value typed again; or whoever reads what the inbox leaves (its notes,
 * results and failed files), who can change the spreadsheet, or take the file to the web page.
 */
export type Readers = 'terminal' | 'page' | 'inbox';

/** What a message advises, as data: where it is read words it (`advice`), so no place is told another's remedy. */
export type Hint =
  /** A date written in another order than YYYY-MM-DD (`day first`), and the date formats that read it; `json`: in a JSON line. */
  | { kind: 'date-order'; written: string; formats: readonly string[]; json?: boolean }
  /** Where the date format given comes from, said where it does not read a date. */
  | { kind: 'date-format-given' }
  /** How a date may be written when no date format was given. */
  | { kind: 'other-dates' }
  /** A value a spreadsheet damaged, to type again: its digits, a phone number's +, a date; `cell`: a workbook's number cell. */
  | { kind: 'retype'; value: 'digits' | 'phone' | 'date'; cell?: boolean }
  /** Columns that (likely) hold fields: each column with the field it holds, or the fields it could hold. */
  | { kind: 'map'; columns: ReadonlyArray<{ column: string; fields: readonly string[] }> }
  /** One of the columns not understood may hold a missing field. */
  | { kind: 'map-some' }
  /** A column passed over because another (`by`) is read as its field. */
  | { kind: 'map-instead'; column: string; field: string; by: string }
  /** A column not understood, which may hold a field. */
  | { kind: 'map-unknown' }
  /** A file's encoding, guessed: what to do where its names look wrong. */
  | { kind: 'encoding-guessed' }
  /** A file's encoding the tool cannot tell; `choices`: the two that read it equally well but differently. */
  | { kind: 'encoding-unsure'; choices?: readonly [string, string] }
  /** A workbook with no sheet of the name given. */
  | { kind: 'sheet' }
  /** A workbook none of whose sheets has a header row naming payer columns. */
  | { kind: 'no-header-sheet' };

const ON_THE_PAGE = 'or upload the file on the web page and choose';

/** How a person without a terminal sends a file again: the page's upload, or the inbox's folder. */
const again = (readers: Readers) => (readers === 'page' ? 'upload it again' : 'drop it into the inbox again');

/** A file to save again in UTF-8, where nobody can name its encoding (no --encoding on the page or in the inbox). */
const saveAgain = (readers: Readers) => `save it as "CSV UTF-8" in its spreadsheet program and ${again(readers)}`;

/** The hint in the words of where it is read. */
export function advice(hint: Hint, readers: Readers): string {
  switch (hint.kind) {
    case 'date-order':
      return dateOrder(hint, readers);
    case 'date-format-given':
      return {
        terminal: '--date-format',
        page: 'the date format chosen above',
        inbox: 'the date format the file is read with',
      }[readers];
    case 'other-dates':
      return {
        terminal: 'YYYY-MM-DD, or as --date-format says',
        page: 'YYYY-MM-DD, or in the date format chosen above',
        inbox: 'YYYY-MM-DD',
      }[readers];
    case 'retype':
      return readers === 'page' ? RETYPE_ON_PAGE[hint.value] : retypeInSpreadsheet(hint);
    case 'map':
      return mapColumns(hint.columns, readers);
    case 'map-some':
      return {
        terminal: 'name it with --map "Their column=fieldName"',
        page: 'choose the field for that column',
        inbox: `rename it in the spreadsheet to the field it holds, ${ON_THE_PAGE} its field there`,
      }[readers];
    case 'map-instead':
      return {
        terminal: `--map "${hint.column}=${hint.field}" reads it instead`,
        page: 'choose the field for this column to read it instead',
        inbox: `remove or rename "${hint.by}" in the spreadsheet to read it instead`,
      }[readers];
    case 'encoding-guessed':
      return readers === 'terminal'
        ? 'if names look wrong, give its encoding with --encoding (windows-1252, macintosh, iso-8859-2, windows-1250, ...)'
        : `if names look wrong, ${saveAgain(readers)}`;
    case 'encoding-unsure':
      if (readers !== 'terminal') return saveAgain(readers);
      return hint.choices
        ? `run it again with --encoding ${hint.choices[0]} or --encoding ${hint.choices[1]}, whichever shows the names right, or save it as "CSV UTF-8"`
        : 'name its encoding with --encoding (such as --encoding windows-1250), or save it as "CSV UTF-8"';
    case 'sheet':
      return readers === 'terminal'
        ? 'give one of these to --sheet'
        : `save the payers' sheet as a file of its own and ${again(readers)}`;
    case 'no-header-sheet':
      return readers === 'terminal'
        ? 'name the sheet to read with --sheet, and its columns with --map if they have names of their own'
        : `put the payers' sheet first in the workbook, under a header row naming their columns, and ${again(readers)}`;
    case 'map-unknown':
      return {
        terminal: 'if it holds a field, --map names it',
        page: 'if it holds a field, choose the field for this column',
        inbox: "if it holds a field, rename it in the spreadsheet to the field's name, or map it on the web page",
      }[readers];
  }
}

function dateOrder(hint: Extract<Hint, { kind: 'date-order' }>, readers: Readers): string {
  const written = `written ${hint.written}`;
  if (readers === 'terminal') return `${written}, --date-format ${hint.formats.join(' or ')} reads it`;
  // A JSON line has no column to choose a date format for: the line itself is what changes.
  if (hint.json) return `${written}: write it as YYYY-MM-DD`;
  if (readers === 'page') return `${written}: choose the date format above`;
  return `${written}: write it as YYYY-MM-DD in the spreadsheet, ${ON_THE_PAGE} its date format there`;
}

// In the grid, the cell is typed again where it is shown: no column to format, nothing to save again.
const RETYPE_ON_PAGE = {
  digits: 'type it again as the whole number',
  phone: 'type it again with + and its country code',
  date: 'type it as YYYY-MM-DD',
} as const;

function retypeInSpreadsheet(hint: Extract<Hint, { kind: 'retype' }>): string {
  if (hint.value === 'date') return 'format the column as a date, or type YYYY-MM-DD';
  // A workbook's number cell is made text by Excel's own format name; a CSV column by the import's.
  if (hint.cell)
    return hint.value === 'phone'
      ? 'format the column as Text and type the number with + and its country code'
      : 'format the column as Text and type the value again';
  return hint.value === 'phone'
    ? 'format the column as text and type it with the +'
    : 'format the column as text and type the value again';
}

/**
 * `add --map "Nom=firstName" (or "Nom=lastName")` for a column that could be several fields, `add --map
 * "Typ=beneficiaryType,Zip=postcode"` for columns that likely are one each; on the page, the column's field chosen; in
 * the inbox, the column renamed in the spreadsheet, or the file taken to the page.
 */
function mapColumns(columns: Extract<Hint, { kind: 'map' }>['columns'], readers: Readers): string {
  const [one] = columns;
  const several = one !== undefined && columns.length === 1 && one.fields.length > 1;
  if (readers === 'page')
    return columns.length === 1 ? 'choose the field for this column' : 'choose the field for these columns';
  if (readers === 'terminal') {
    if (!several) return `add --map "${columns.map(({ column, fields }) => `${column}=${fields[0]}`).join(',')}"`;
    const [first, ...others] = one.fields.map((field) => `"${one.column}=${field}"`);
    return `add --map ${first}${others.length > 0 ? ` (or ${others.join(', or ')})` : ''}`;
  }
  if (several)
    return `rename "${one.column}" in the spreadsheet to ${one.fields.join(' or ')}, whichever it holds, ${ON_THE_PAGE} its field there`;
  const renames = columns.map(({ column, fields }) => `"${column}" to ${fields[0]}`).join(' and ');
  return `rename ${renames} in the spreadsheet, ${ON_THE_PAGE} ${columns.length === 1 ? 'its field' : 'their fields'} there`;
}
