import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { ConfigError } from '../core/errors.js';
import { readingOptions } from '../input/openInput.js';
import type { JournalPlace } from '../journal/openJournal.js';
import { journalPlace, stateDirs } from '../journal/stateDir.js';
import { DIRECTORY_OPTIONS, FORGET_OPTIONS, resolveDirectoryWhere } from '../options/directoryOptions.js';
import type { OptionDef } from '../options/OptionDef.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CliIo, CommandBody } from './CliCommand.js';
import { INPUT_FILES } from './runCommand.js';

/**
 * `payer-onboard directory import FILE...`: the payer directory filled from payer files, as a run would fill it,
 * without sending anything: for payers registered before the store kept one, from a file the team has at hand.
 */
export const directoryCommand: CommandBody = {
  builder: (yargs) =>
    withWhereOptions(yargs, DIRECTORY_OPTIONS)
      .command(
        'import <input...>',
        "fill the payer directory (names, e-mail, company) from payer files' valid rows; sends nothing",
        (y) => y.positional('input', INPUT_FILES),
      )
      .demandCommand(1, 'Choose import.')
      .example(
        'PAYER_API_KEY=... $0 directory import payers.csv --base-url https://api.example.com',
        'the names and e-mail of the payers an earlier version registered, for the invitations',
      ),
  handler: async (argv, io) => {
    const { place, named } = directoryPlace(argv, io);
    const reading = await readingFrom(argv, io.cwd);
    const inputs = (argv.input as string[]).map((path) => resolve(io.cwd, path));
    const [{ openStore }, { importDirectory }] = await Promise.all([
      import('../store/openStore.js'),
      import('../pipeline/importDirectory.js'),
    ]);
    const store = await openStore(place);
    try {
      const done = await importDirectory(inputs, reading, store.directory(place.service), new Date());
      for (const warning of done.warnings) io.stderr.write(`warning: ${warning}\n`);
      for (const name of done.bankOnly) io.stderr.write(`${name}: bank rows only, no payer in it: nothing to import\n`);
      for (const row of done.unusable) io.stderr.write(`${row.where}: ${row.why}\n`);
      const written = done.added + done.changed + done.same;
      io.stderr.write(
        `directory import: ${written} ${written === 1 ? "payer's entry" : "payers' entries"} written into the store ` +
          `${store.location} (${named}): ${done.added} new, ${done.changed} changed, ` +
          `${done.same} the same` +
          (done.unusable.length === 0
            ? '\n'
            : `; ${done.unusable.length} row${done.unusable.length === 1 ? '' : 's'} not used (above): fix and import again\n`),
      );
      return done.unusable.length > 0 ? 1 : 0;
    } finally {
      await store.close();
    }
  },
};

/** How the files are read (`--sheet`, `--map`, `--date-format`, `--encoding`), checked as run checks them, every problem at once. */
async function readingFrom(argv: Record<string, unknown>, cwd: string) {
  const { RUN_CHECKS } = await import('../options/resolve.js');
  const problems: string[] = [];
  const checked = (name: 'dateFormat' | 'encoding' | 'sheet' | 'map') => {
    const value = argv[DIRECTORY_OPTIONS[name].flag];
    if (value === undefined) return undefined;
    const parsed = RUN_CHECKS[name].safeParse(value);
    if (parsed.success) return parsed.data;
    problems.push(`--${DIRECTORY_OPTIONS[name].flag}: ${parsed.error.issues[0]?.message}`);
    return undefined;
  };
  const given = { map: checked('map'), dateFormat: checked('dateFormat'), encoding: checked('encoding') };
  const sheet = checked('sheet');
  if (problems.length > 0) throw new ConfigError(problems.join('\n'), 'E_USAGE');
  return { ...readingOptions(given, cwd), sheet };
}

/**
 * A table's options, and `--api-key` and `--database-url` taken only to be refused as run refuses them: a secret in
 * a flag's value stays in shell history and shows in ps.
 */
export function withWhereOptions(yargs: Argv, table: Record<string, OptionDef>): Argv {
  return addOptions(yargs, table)
    .option('api-key', { type: 'string', hidden: true })
    .option('database-url', { type: 'string', hidden: true });
}

/**
 * Where the directory of the service and key the flags name is: the store and the service's part of it, and how
 * messages name the service (its host and "this API key", never the key).
 */
export function directoryPlace(argv: Record<string, unknown>, io: CliIo): { place: JournalPlace; named: string } {
  if (argv['api-key'] !== undefined)
    throw new ConfigError(
      '--api-key: the key is never taken as a flag value (shell history, ps): set PAYER_API_KEY, or give --api-key-file FILE',
      'E_USAGE',
    );
  if (argv['database-url'] !== undefined)
    throw new ConfigError(
      '--database-url: the URL holds a password, so it is never taken as a flag value: set PAYER_ONBOARD_DATABASE_URL, or give --database-url-file FILE',
      'E_USAGE',
    );
  const given = Object.fromEntries(
    Object.entries(FORGET_OPTIONS).flatMap(([name, def]) =>
      typeof argv[def.flag] === 'string' ? [[name, argv[def.flag] as string]] : [],
    ),
  );
  const where = resolveDirectoryWhere(given, io.env, io.cwd);
  const places = { cwd: io.cwd, env: io.env, home: io.env.HOME ?? homedir() };
  let host = where.baseUrl;
  try {
    host = new URL(where.baseUrl).host || host;
  } catch {
    // named as given
  }
  return {
    place: journalPlace(stateDirs(where.stateDir, places), where.baseUrl, where.apiKey, where.databaseUrl),
    named: `${host} with this API key`,
  };
}
