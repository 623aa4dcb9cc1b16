import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawnBin.js';
import { removeTempDirs, tempDir } from '../helpers/tempDir.js';

// A file whose every row is invalid makes a line in each output for every row: results.csv, the failed file and
// the run log. Each must be written as fast as it is made, not held: the log's writer once kept every line it had
// not written yet (tens of megabytes on a 25 MB file, more the longer the file). The bin runs as a user starts it
// (its `#!` line's node flags) on a 15 MB file; what it holds must not grow with the rows (measured: 175 MB at the
// peak here, against 230-280 MB when the log held its lines; a tiny file's run is about 130 MB).

afterEach(removeTempDirs);

const HEADER =
  'clientUserId,email,firstName,lastName,beneficiaryType,dateOfBirth,addressLine1,addressLine2,city,state,postcode,' +
  'country,nationality,phone,ssn,companyName,sourceOfFunds,businessActivity,bankName,accountName,currency,' +
  'accountNumber,routingNumber,accountType,rails,agreementCompleted';
/** An e-mail that is not one and a date that does not exist: two problems on every row. */
const row = (i: number) =>
  `p-${i},not-an-email,Ada,Lovelace,individual,1985-13-10,12 Analytical Way,,Springfield,IL,62701,US,US,` +
  '+12175550100,123-45-6701,,,,First Midwest Bank,Ada Lovelace,USD,000123456789,021000021,checking,local,';
const ROWS = 72_000;
const PEAK_MB = 210;

/** The node flags of the bin's `#!` line. */
const binFlags = () => (/^#!.*?\bnode\b(.*)$/.exec(readFileSync(BIN, 'utf8').split('\n', 1)[0]!)?.[1] ?? '').trim();

describe('validate of a file whose every row is invalid', () => {
  it('writes every row out and holds no more memory than a bound that does not grow with the rows', async () => {
    const tmp = tempDir();
    const lines = [HEADER];
    for (let i = 0; i < ROWS; i++) lines.push(row(i));
    const input = tmp.write('invalid.csv', `${lines.join('\n')}\n`);
    const peakFile = tmp.path('peak.txt');
    // The process's own peak, written as it exits: what `/usr/bin/time -f %M` says, without needing that program.
    const hook = tmp.write(
      'peak.cjs',
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(peakFile)}, ` +
        'String(process.resourceUsage().maxRSS)));\n',
    );
    const out = tmp.path('out');
    const child = spawn(
      process.execPath,
      [...binFlags().split(/\s+/).filter(Boolean), '--require', hook, BIN, 'validate', input, '--out', out],
      { cwd: tmp.dir, env: { PATH: process.env.PATH, HOME: process.env.HOME }, stdio: 'ignore' },
    );
    const [code] = await once(child, 'close');

    expect(code).toBe(1); // rows to fix
    const summary = JSON.parse(readFileSync(`${out}/summary.json`, 'utf8')) as { rows: { invalid: number } };
    expect(summary.rows.invalid).toBe(ROWS);
    // Every row has its line in each file (the header's too, and the log's first and last lines).
    const lineCount = (name: string) => readFileSync(`${out}/${name}`, 'utf8').split('\n').length - 1;
    expect(lineCount('results.csv')).toBe(ROWS + 1);
    expect(lineCount('failed-invalid.csv')).toBe(ROWS + 1);
    expect(lineCount('run.log')).toBeGreaterThan(ROWS);
    expect(statSync(`${out}/run.log`).size).toBeGreaterThan(ROWS * 300);
    const peakMb = Number(readFileSync(peakFile, 'utf8')) / 1024;
    expect(peakMb).toBeLessThan(PEAK_MB);
  });
});
