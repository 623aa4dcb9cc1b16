import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { type JournaledPayer, journaledPayers } from '../journal/RowJournal.js';
import type { JournalPlace } from '../journal/openJournal.js';
import { readOwnCsv } from '../output/readOwnCsv.js';
import type { Store } from '../store/Store.js';
import { askInvitation, INVITATION, nothingToAsk } from './invitationRules.js';

/** Payers of a results.csv decided on at a time (the journal, their mails and entries read for each chunk). */
const CHUNK = 200;

interface FromRuns {
  /** serve's store, open for its life, and the journal's place in it. */
  journal: JournalPlace & { open: Store };
  /** The inbox's results/ folder: a folder per run, each with its results.csv. */
  resultsDir: string;
}

/**
 * The results.csv files serve's runs wrote since the newest one taken (`takenSetting` keeps its time), each read
 * for the payers the run registered that still have something to do: an invitation is asked for each, once. A run
 * registered a payer where its `steps` say `compliance=ok`, or `done-before` for a payer the journal first saw since
 * serve began inviting (`invitingSince`): a run resumed after a crash finds done what the crashed one registered.
 * Files are what serve's runs leave anyway, so a crash between a run and this loses no invitation: the next start
 * takes the file.
 */
export async function inviteFromRuns(
  spec: FromRuns,
  invitingSince: string,
  takenSetting: string,
  now: number,
): Promise<void> {
  const dir = spec.resultsDir;
  if (!existsSync(dir)) return;
  const settings = spec.journal.open.journal(spec.journal.service);
  const taken = Number((await settings.setting(takenSetting)) ?? 0);
  const files: Array<{ path: string; mtimeMs: number }> = [];
  for (const folder of readdirSync(dir)) {
    const path = join(dir, folder, 'results.csv');
    const mtimeMs = existsSync(path) ? statSync(path).mtimeMs : -1;
    // The newest one taken is taken again: a file written in the same millisecond is not missed (asking twice
    // changes nothing).
    if (mtimeMs >= taken) files.push({ path, mtimeMs });
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  const at = new Date(now).toISOString();
  for (const file of files) {
    let chunk = new Map<string, boolean>();
    for await (const row of readOwnCsv(file.path)) {
      const id = row.clientUserId ?? '';
      const compliance = /(?:^| )compliance=(ok|done-before)(?: |$)/.exec(row.steps ?? '')?.[1];
      if (id === '' || compliance === undefined) continue;
      chunk.set(id, (chunk.get(id) ?? false) || compliance === 'ok');
      if (chunk.size >= CHUNK) {
        await askFor(spec.journal, chunk, invitingSince, at);
        chunk = new Map();
        await setImmediate();
      }
    }
    if (chunk.size > 0) await askFor(spec.journal, chunk, invitingSince, at);
    await settings.write([{ setting: takenSetting, value: String(file.mtimeMs) }]);
  }
}

/** Invitations asked for the payers of a chunk (true: registered by the run itself) that may have one. */
async function askFor(
  journal: JournalPlace & { open: Store },
  chunk: Map<string, boolean>,
  invitingSince: string,
  at: string,
): Promise<void> {
  const ids = [...chunk.keys()];
  const directory = journal.open.directory(journal.service);
  const payers = await journaledPayers(journal, ids);
  const entries = await directory.entries(ids);
  const invitations = new Map(
    (await directory.mails(ids)).filter((m) => m.step === INVITATION).map((m) => [m.clientUserId, m]),
  );
  for (const [id, byTheRun] of chunk) {
    const payer = payers(id);
    if (!registeredHere(payer, byTheRun, invitingSince) || nothingToAsk(payer) !== undefined) continue;
    const ask = askInvitation(invitations.get(id), entries.get(id), 'serve');
    if ('guard' in ask) await directory.putMail({ clientUserId: id, step: INVITATION, state: 'due', at }, ask.guard);
  }
}

/** The run registered the payer, or the journal first saw it since serve began inviting (a run resumed after a crash). */
function registeredHere(payer: JournaledPayer | undefined, byTheRun: boolean, since: string): boolean {
  return byTheRun || (payer?.since !== undefined && payer.since >= since);
}
