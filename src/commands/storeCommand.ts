import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { stateDirs } from '../journal/stateDir.js';
import { readSecretFile } from '../options/connection.js';
import { STORE_OPTIONS } from '../options/storeOptions.js';
import { addOptions } from '../options/yargsFlags.js';
import type { CliIo, CommandBody } from './CliCommand.js';

/**
 * `payer-onboard store backup FILE` and `payer-onboard store copy`: a backup of the SQLite store while runs go on,
 * and the move of that store into PostgreSQL. One line on stderr says what was written.
 */
export const storeCommand: CommandBody = {
  builder: (yargs) =>
    addOptions(yargs, STORE_OPTIONS)
      // Taken only to be refused: the URL holds a password (shell history, ps).
      .option('to-database-url', { type: 'string', hidden: true })
      .command('backup <file>', 'write a consistent copy of the SQLite store to FILE (mode 0600), while runs go on')
      .command('copy', 'copy the SQLite store into a PostgreSQL database, merged with what it holds')
      .demandCommand(1, 'Choose backup or copy.')
      .example('$0 store backup /backups/payer-onboard-$(date +%F).db', 'a copy to keep, made while runs go on')
      .example(
        'PAYER_ONBOARD_COPY_TO_URL=postgres://... $0 store copy',
        'then set PAYER_ONBOARD_DATABASE_URL for every run',
      ),
  handler: async (argv, io) => {
    const given = (argv['state-dir'] as string | undefined) ?? (io.env.PAYER_ONBOARD_STATE_DIR || undefined);
    const places = { cwd: io.cwd, env: io.env, home: io.env.HOME ?? homedir() };
    const stateDir = stateDirs(given, places).dir;
    return (argv._ as unknown[])[1] === 'backup' ? backup(argv, io, stateDir) : copy(argv, io, stateDir);
  },
};

async function backup(argv: Record<string, unknown>, io: CliIo, stateDir: string): Promise<number> {
  if (io.env.PAYER_ONBOARD_DATABASE_URL)
    throw new ConfigError(
      'PAYER_ONBOARD_DATABASE_URL is set, so the store is in PostgreSQL: back it up with pg_dump ' +
        '(or unset it to back up the SQLite store of the state dir)',
      'E_USAGE',
    );
  const { backupStore } = await import('../store/backupStore.js');
  const to = resolve(io.cwd, String(argv.file));
  const done = await backupStore(stateDir, to, Boolean(argv.force));
  io.stderr.write(
    `wrote ${String(argv.file)} (${Math.ceil(done.bytes / 1024)} kB, readable by this user only): ` +
      `a consistent copy of the store ${done.from}\n`,
  );
  return 0;
}

async function copy(argv: Record<string, unknown>, io: CliIo, stateDir: string): Promise<number> {
  if (argv['to-database-url'] !== undefined)
    throw new ConfigError(
      '--to-database-url: the URL is never taken as a flag value (it holds a password, which would stay in your ' +
        'shell history and show in ps): put it in a file and give --to-database-url-file FILE, or set PAYER_ONBOARD_COPY_TO_URL',
      'E_USAGE',
    );
  const file = argv['to-database-url-file'] as string | undefined;
  const url =
    file === undefined
      ? io.env.PAYER_ONBOARD_COPY_TO_URL || undefined
      : readSecretFile(file, '--to-database-url-file', io.cwd);
  if (url === undefined)
    throw new ConfigError(
      'store copy: give the PostgreSQL database to copy into: --to-database-url-file FILE (a file holding its ' +
        'postgres:// URL), or set PAYER_ONBOARD_COPY_TO_URL',
      'E_USAGE',
    );
  const { copyStore } = await import('../store/copyStore.js');
  const given = file === undefined ? 'PAYER_ONBOARD_COPY_TO_URL' : `--to-database-url-file ${file}`;
  const done = await copyStore(stateDir, { url, given });
  const { payers, calls, directory } = done;
  io.stderr.write(
    `copied the store ${done.from} into ${done.to}: ${done.services} service${done.services === 1 ? '' : 's'}; ` +
      `payers ${payers.copied} copied, ${payers.merged} merged; calls ${calls.copied} copied, ${calls.merged} merged; ` +
      `${done.settings} settings, ${done.events} webhook deliveries and ${done.waiting} rows waiting copied; ` +
      `directory entries ${directory.copied} copied, ${directory.merged} merged; ${done.links} payer links, ` +
      `${done.mails} mail records and ${done.signatures} signatures copied\n`,
  );
  return 0;
}
