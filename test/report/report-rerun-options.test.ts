import { describe, expect, it } from 'vitest';
import { resolveRunOptions } from '../../src/options/resolve.js';
import { commandLine, rerunOptions } from '../../src/report/rerunCommand.js';
import { tempDir } from '../helpers/tempDir.js';

// The options report.html's command carries to a run of the failed file: as they were given, paths made absolute.

describe('the options of the command that runs the failed rows again', () => {
  it('keeps a map given inline as it was, and makes a map file, the state dir and the database file absolute', () => {
    const dir = tempDir();
    dir.write('map.json', '{"Type": "beneficiaryType"}');
    const words = (map: string, sandboxed = false) =>
      rerunOptions(
        'run',
        resolveRunOptions({ inputs: ['p.csv'], map, stateDir: 'state', databaseUrlFile: 'db-url', rate: 2 }),
        dir.dir,
        sandboxed,
      );
    expect(words('Type=beneficiaryType, Zip Code=postcode')).toEqual([
      '--map',
      'Type=beneficiaryType, Zip Code=postcode',
      '--state-dir',
      dir.path('state'),
      '--database-url-file',
      dir.path('db-url'),
      '--rate',
      '2',
    ]);
    expect(words('{"Type": "beneficiaryType"}').slice(0, 2)).toEqual(['--map', '{"Type": "beneficiaryType"}']);
    expect(words('map.json').slice(0, 2)).toEqual(['--map', dir.path('map.json')]);
    // A rehearsal's next run has a sandbox of its own: no store of the one that is gone.
    expect(words('Type=beneficiaryType', true)).toEqual(['--map', 'Type=beneficiaryType', '--rate', '2']);
  });

  it('quotes each word for a POSIX shell where it must, a quote inside one included', () => {
    expect(commandLine(['--map', "Payer's Kind=beneficiaryType,Zip=postcode", '--rate', '2', ''])).toBe(
      `--map 'Payer'\\''s Kind=beneficiaryType,Zip=postcode' --rate 2 ''`,
    );
    expect(commandLine(['{"a": "b"}', '$HOME', 'a;b', '*'])).toBe(`'{"a": "b"}' '$HOME' 'a;b' '*'`);
  });
});
