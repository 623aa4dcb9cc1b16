import { join, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { JournalPlace } from '../journal/openJournal.js';
import { payerKeyOf } from '../journal/RowJournal.js';
import { isLoopbackHost } from '../options/connection.js';
import { LINK_OPTIONS } from '../options/serveOptions.js';
import { openStore, storeMayHold } from '../store/openStore.js';
import type { PayerDirectoryTables } from '../store/Store.js';
import { Audit } from '../web/Audit.js';
import { issueLink } from '../web/payerLinks.js';
import { osActor } from '../web/teamUsers.js';
import type { CliIo, CommandBody } from './CliCommand.js';
import { directoryPlace, withWhereOptions } from './directoryCommand.js';

/**
 * `payer-onboard link new ID...`: a new personal link for each payer, printed on stdout one a line (in the order the
 * ids were given), for a person to hand over; `link revoke ID...`: every link of each payer revoked. The links are
 * kept in the store of serve's state dir, for its service and key.
 */
export const linkCommand: CommandBody = {
  builder: (yargs) =>
    withWhereOptions(yargs, LINK_OPTIONS)
      .command('new <id...>', 'make each payer a new personal link to their own page: printed on stdout, one a line')
      .command('revoke <id...>', 'revoke every link of each payer: their page then says the link is not valid')
      .demandCommand(1, 'Choose new or revoke.')
      .example(
        'PAYER_API_KEY=... $0 link new payer-17 --inbox /srv/payers --base-url https://api.example.com --public-url https://payers.example.com',
        'a link to hand to payer-17',
      )
      .example('PAYER_API_KEY=... $0 link revoke payer-17 --inbox /srv/payers --base-url https://api.example.com', ''),
  handler: async (argv, io) => {
    const action = String((argv._ as unknown[])[1]) as 'new' | 'revoke';
    const ids = ((argv.id as unknown[] | undefined) ?? []).map(String);
    const publicUrl = argv['public-url'] === undefined ? undefined : checkedPublicUrl(String(argv['public-url']));
    if (action === 'new' && publicUrl === undefined)
      throw new ConfigError(
        "link new: --public-url URL is required: serve's address, which the links lead to",
        'E_USAGE',
      );
    const days = argv['link-days'] === undefined ? LINK_OPTIONS.linkDays.default : Number(argv['link-days']);
    if (!(days > 0 && days <= 366))
      throw new ConfigError('--link-days: must be a number of days above 0, at most 366', 'E_USAGE');
    const place = servePlace(argv, io);
    if (!storeMayHold(place))
      throw new ConfigError(
        `link: no store in ${place.stateDir}: give serve's --inbox DIR, or the --state-dir it keeps its store in`,
        'E_USAGE',
      );
    const store = await openStore(place);
    try {
      const directory = store.directory(place.service);
      const journal = store.journal(place.service);
      // Handing out or ending a payer's links enters the audit trail, as it does from the team's page.
      const audit = new Audit(store.controls(place.service));
      let unknown = 0;
      for (const id of ids) {
        const known = (await journal.payer(payerKeyOf(id))) !== undefined || (await directory.entries([id])).has(id);
        if (!known) {
          io.stderr.write(`link: ${id}: no payer of this id in the store (check the id, --base-url and the key)\n`);
          unknown += 1;
        } else if (action === 'new') {
          const expiresAt = await newLink(directory, id, publicUrl!, days, io);
          await audit.record(osActor(), 'new link', id, { expiresAt });
        } else {
          const revoked = await directory.revokeLinks(id, new Date().toISOString());
          await audit.record(osActor(), 'revoke', id, { links: revoked });
          io.stderr.write(`link: ${id}: ${revoked === 1 ? '1 link' : `${revoked} links`} revoked\n`);
        }
      }
      return unknown > 0 ? 1 : 0;
    } finally {
      await store.close();
    }
  },
};

async function newLink(directory: PayerDirectoryTables, id: string, publicUrl: string, days: number, io: CliIo) {
  const made = await issueLink(directory, id, { now: new Date(), days, publicUrl });
  io.stdout.write(`${made.url}\n`);
  io.stderr.write(`link: ${id}: a new link, valid until ${made.expiresAt.slice(0, 10)}\n`);
  return made.expiresAt;
}

/** Where serve keeps its store: its state dir (the inbox's `.payer-onboard` unless told), its service and key. */
export function servePlace(argv: Record<string, unknown>, io: CliIo): JournalPlace {
  const inbox = argv.inbox === undefined ? undefined : join(resolve(io.cwd, String(argv.inbox)), '.payer-onboard');
  const stateDir = argv['state-dir'] ?? (io.env.PAYER_ONBOARD_STATE_DIR ? undefined : inbox);
  return directoryPlace({ ...argv, 'state-dir': stateDir }, io).place;
}

/** serve's public address as serve takes it: https, or http to this machine only (the links are keys). */
export function checkedPublicUrl(given: string): string {
  let url: URL | undefined;
  try {
    url = new URL(given);
  } catch {
    // said below
  }
  if (url?.protocol === 'https:' || (url?.protocol === 'http:' && isLoopbackHost(url.hostname))) return given;
  throw new ConfigError(
    `--public-url: ${given} is not serve's https:// address (such as https://payers.example.com; http only to this machine)`,
    'E_USAGE',
  );
}
