import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { readReport } from '../helpers/reportFixtures.js';
import { PAYER_HEADER, payersCsv } from '../helpers/runHarness.js';
import { BIN, spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';

// The command report.html gives to run the failed rows again is pasted into a shell as it stands: it must run with
// this run's options as they were given. A map given inline is a map, not a file in some folder.

let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

/** The text of the report's command, as a reader copies it: tags dropped, entities decoded. */
const rerunLine = (html: string) =>
  (/<pre class="cmd" data-rerun><code>(.*?)<\/code><\/pre>/s.exec(html)?.[1] ?? '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

// Column names a person wrote that no alias knows, one with a space and one with a quote: the shell must get them whole.
const MAP = "Payer's Kind=beneficiaryType,Zip Code=postcode";

describe("report.html's command to run the failed rows again, with an inline --map", () => {
  it.each([
    ['validate', []],
    ['run', ['--sandbox']],
  ])('keeps the map inline and quoted, and run by sh exits as the first %s did', async (command, service) => {
    tmp = tempDir();
    const csv = payersCsv(['m-1', 'm-2'], { 'm-2': { email: 'not-an-email' } }).replace(
      PAYER_HEADER,
      PAYER_HEADER.replace('beneficiaryType', "Payer's Kind").replace('postcode', 'Zip Code'),
    );
    tmp.write('payers.csv', csv);
    const first = await spawnBin([command!, 'payers.csv', '--map', MAP, '--out', 'out', ...service], {
      cwd: tmp.dir,
    }).done;
    expect(first.stderr).toContain('1 invalid');
    expect(first.code).toBe(1);

    const line = rerunLine(readReport(tmp.path('out/report.html')));
    expect(line).toContain(` --map 'Payer'\\''s Kind=beneficiaryType,Zip Code=postcode'`);
    // Pasted in another folder, as the shell splits it: the fixed file is read with the same map.
    const elsewhere = tmp.path('elsewhere');
    mkdirSync(elsewhere);
    const again = await promisify(execFile)(
      'sh',
      ['-c', `${line.replace(/^npx payer-onboard /, `"${process.execPath}" "${BIN}" `)} --out again`],
      { cwd: elsewhere, env: { PATH: process.env.PATH, HOME: process.env.HOME }, timeout: 30_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(again.stderr).toContain('1 invalid');
    expect(again.code).toBe(first.code);
  });
});
