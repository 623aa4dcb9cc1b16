import { FORGET_OPTIONS } from '../options/directoryOptions.js';
import type { Forgotten } from '../store/Store.js';
import type { CommandBody } from './CliCommand.js';
import { directoryPlace, withWhereOptions } from './directoryCommand.js';

/**
 * `payer-onboard forget ID...`: erases what the store keeps that says who a payer is (their directory entry and
 * personal links), one line each on stderr. Exit 1 when an id is not known to the store at all: likely a typo, or
 * another base URL or key.
 */
export const forgetCommand: CommandBody = {
  builder: (yargs) =>
    withWhereOptions(yargs, FORGET_OPTIONS)
      .positional('id', {
        type: 'string',
        array: true,
        default: undefined,
        describe: 'the clientUserIds of the payers to forget',
      })
      .example(
        'PAYER_API_KEY=... $0 forget payer-0042 --base-url https://api.example.com',
        "erase the payer's name, e-mail and company, and their links",
      ),
  handler: async (argv, io) => {
    const { place, named } = directoryPlace(argv, io);
    const ids = (argv.id as unknown[]).map(String);
    const [{ openStore, storeMayHold }, { payerKeyOf }] = await Promise.all([
      import('../store/openStore.js'),
      import('../journal/RowJournal.js'),
    ]);
    if (!storeMayHold(place)) {
      for (const id of ids) io.stderr.write(`${id}: not known (no store in ${place.stateDir} yet): nothing to erase\n`);
      return 1;
    }
    const store = await openStore(place);
    try {
      // Which store it was: a machine may hold several (serve's inbox's, a person's own state dir).
      io.stderr.write(`forget: in the store ${store.location} (${named})\n`);
      let missing = 0;
      for (const id of new Set(ids)) {
        const forgotten = await store.directory(place.service).forget(id);
        const key = payerKeyOf(id);
        const journaled = (await store.journal(place.service).payer(key)) !== undefined;
        const waiting = (await store.waiting(place.service).ofPayers([key])).length;
        if (forgotten === undefined && !journaled && waiting === 0) {
          io.stderr.write(`${id}: not known to the store ${store.location} (${named}): nothing to erase\n`);
          missing++;
          continue;
        }
        io.stderr.write(`${forgetLine(id, forgotten, journaled, waiting)}\n`);
      }
      return missing > 0 ? 1 : 0;
    } finally {
      await store.close();
    }
  },
};

/** What was erased of a payer and what is kept, and why each is kept. */
function forgetLine(id: string, forgotten: Forgotten | undefined, journaled: boolean, waiting: number): string {
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  const erased = [
    ...(forgotten?.entry ? ['its directory entry (names, e-mail, company)'] : []),
    ...(forgotten?.links ? [n(forgotten.links, 'personal link')] : []),
  ];
  const kept = [
    ...(forgotten?.mails
      ? [
          `${n(forgotten.mails, 'mail record')} (step, state and time, the reason erased: ` +
            `${forgotten.mails === 1 ? 'it keeps that mail' : 'they keep those mails'} from going out again)`,
        ]
      : []),
    ...(forgotten?.signature ? ['how and when its agreement was signed (for the record)'] : []),
    ...(journaled ? ["the journal's record (its id's hash, digests and statuses: no name or e-mail)"] : []),
  ];
  const parts = [
    erased.length === 0 ? 'nothing to erase (no directory entry or link)' : `erased ${list(erased)}`,
    ...(kept.length === 0 ? [] : [`kept ${list(kept)}`]),
    ...(waiting === 0
      ? []
      : [
          `${n(waiting, 'row', 'rows')} of it still ${waiting === 1 ? 'waits' : 'wait'} in the store with ` +
            `${waiting === 1 ? 'its' : 'their'} cells, until run to the end`,
        ]),
  ];
  return `${id}: ${parts.join('; ')}`;
}

function list(items: string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
