import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CsvFileWriter } from '../../src/output/CsvFileWriter.js';
import { removeTempDirs, tempDir } from '../helpers/tempDir.js';

// CsvFileWriter hands records to the file together (up to a batch, or a tenth of a second after the first): what
// lands must be exactly what a record-by-record writer gives, in order, whatever the turns of the event loop, and
// nothing may wait for close() to reach the file.

afterEach(removeTempDirs);

describe('CsvFileWriter', () => {
  it('writes every record in order, across turns and past a batch, in the dialect asked for, BOM once', async () => {
    const tmp = tempDir();
    const path = tmp.path('out.csv');
    const writer = new CsvFileWriter(path, ['id', 'note'], { delimiter: ';', eol: '\r\n', bom: true });
    const records = Array.from({ length: 1300 }, (_, i) => [`p-${i}`, i % 7 === 0 ? `a;b "${i}"\nnext` : `n${i}`]);
    for (const [i, record] of records.entries()) {
      await writer.write(record);
      if (i % 500 === 499) await nextTurn(); // some records in later turns of the loop
    }
    await writer.close();

    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('\uFEFFid;note\r\np-0;"a;b ""0""\nnext"\r\np-1;n1\r\n')).toBe(true);
    expect(text.indexOf('\uFEFF', 1)).toBe(-1);
    expect(parse(text, { bom: true, delimiter: ';', record_delimiter: '\r\n' })).toEqual([['id', 'note'], ...records]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('quotes a cell holding a lone CR or LF, so no other reader splits the row (and what follows never starts one)', async () => {
    const tmp = tempDir();
    for (const eol of ['\r\n', '\n']) {
      const path = tmp.path(`nl-${eol.length}.csv`);
      const writer = new CsvFileWriter(path, ['a', 'b', 'c'], { eol });
      await writer.write(['x\ny', 'x\ry', '\n=4']);
      await writer.close();
      const text = readFileSync(path, 'utf8');
      expect(text).toBe(`a,b,c${eol}"x\ny","x\ry","\n=4"${eol}`);
      // A reader that splits records on any newline outside quotes still finds two.
      expect(parse(text, { record_delimiter: ['\r\n', '\n', '\r'] })).toEqual([
        ['a', 'b', 'c'],
        ['x\ny', 'x\ry', '\n=4'],
      ]);
    }
  });

  it('a file closed without records holds its header', async () => {
    const tmp = tempDir();
    const writer = new CsvFileWriter(tmp.path('empty.csv'), ['a', 'b']);
    await writer.close();
    expect(readFileSync(tmp.path('empty.csv'), 'utf8')).toBe('a,b\n');
  });

  it('a record changed after it was written is written as it was', async () => {
    const tmp = tempDir();
    const writer = new CsvFileWriter(tmp.path('copy.csv'), ['a']);
    const record = ['first'];
    await writer.write(record);
    record[0] = 'changed';
    await writer.close();
    expect(readFileSync(tmp.path('copy.csv'), 'utf8')).toBe('a\nfirst\n');
  });

  it('writes a record without waiting for more, or for close()', async () => {
    const tmp = tempDir();
    const path = tmp.path('open.csv');
    const writer = new CsvFileWriter(path, ['a']);
    await writer.write(['only']);
    await vi.waitFor(() => expect(readFileSync(path, 'utf8')).toBe('a\nonly\n'), { timeout: 5000, interval: 10 });
    await writer.close();
  });

  it('writes what waits when the process ends without closing the file', () => {
    const tmp = tempDir();
    const path = tmp.path('unclosed.csv');
    const writerModule = fileURLToPath(new URL('../../dist/output/CsvFileWriter.js', import.meta.url));
    const script = `
      const { CsvFileWriter } = await import(${JSON.stringify(pathToFileURL(writerModule).href)});
      const writer = new CsvFileWriter(${JSON.stringify(path)}, ['a']);
      await writer.write(['not closed']);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('a\nnot closed\n');
  });
});
