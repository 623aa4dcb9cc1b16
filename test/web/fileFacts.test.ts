import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { factLines, fileFacts } from '../../src/web/fileFacts.js';
import { PAYER_HEADER, payerRow } from '../helpers/runHarness.js';
import { tempDir } from '../helpers/tempDir.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

describe('fileFacts', () => {
  it('a CSV as Excel saves it in Europe: windows-1252, semicolons, the header on line 1', async () => {
    const text = `${PAYER_HEADER}\n${payerRow('f-1', { firstName: 'Zoë' })}\n`.replace(/,/g, ';');
    const path = tmp.write('payers.csv', Buffer.from(text, 'latin1'));
    const facts = await fileFacts(path);
    expect(facts).toMatchObject({ headerLine: 1, delimiter: ';', encoding: 'windows-1252' });
    expect(factLines(facts)).toEqual([
      ['Header row', 'line 1'],
      ['Encoding', 'windows-1252'],
      ['Separator', '";"'],
    ]);
  });

  it('a file of more rows than asked is read no further than the row past them', async () => {
    const path = tmp.write(
      'payers.csv',
      `${PAYER_HEADER}\n${['f-1', 'f-2', 'f-3'].map((id) => payerRow(id)).join('\n')}\n`,
    );
    expect(await fileFacts(path, 3)).toEqual({ headerLine: 1, encoding: 'utf-8', delimiter: ',' });
    expect(await fileFacts(path, 2)).toEqual({ tooManyRows: true });
  });

  it('a file the tool cannot read has no facts (its check says why)', async () => {
    expect(await fileFacts(tmp.write('empty.csv', ''))).toEqual({});
  });
});
