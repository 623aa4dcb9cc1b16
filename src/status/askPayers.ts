import type { LimitFunction } from 'p-limit';
import type { ApiClient } from '../execute/ApiClient.js';
import type { JournaledPayer } from '../journal/RowJournal.js';
import type { OrderedSink } from '../output/results.js';
import { readyForAccount } from '../plan/verdict.js';
import type { MailRecord } from '../store/Store.js';
import { mailRefusedNote, payerStatus, type PayerStatus } from './payerStatus.js';
import type { StatusTarget } from './statusInputs.js';
import type { PayerWho } from '../report/payerNames.js';

/** A payer's two reads; the accounts are undefined when they were not read. */
type StatusReads = Parameters<typeof payerStatus>[1];

/** What every payer is asked with, and where its line goes. */
export interface Asking {
  client: ApiClient;
  /** What the journal kept of each payer (links, whether it was ready for a bank account when last seen). */
  /** What the journal kept of a payer, looked up by its key as it is asked about. */
  journaled: (clientUserId: string) => Promise<JournaledPayer | undefined>;
  /** The payer's last mail from serve, when the mail server refused it. */
  mailRefused?: (clientUserId: string) => Promise<MailRecord | undefined>;
  /** Who the payer is, where the payer directory has an entry. */
  who?: (clientUserId: string) => Promise<PayerWho | undefined>;
  /** The reads out at once (`--concurrency`). */
  slots: LimitFunction;
  /** status.csv in input order. */
  sink: OrderedSink<PayerStatus>;
}

/**
 * Payers are asked about as they are read, from `first` on: each one's id goes on `ids` and its place in the sink is
 * taken. What the journal kept is read first; what only the whole input settles (links a results.csv carries) is
 * waited for before a payer's line is made, never before its first read. Returns each payer's asking, and the error
 * the input broke with, if it did: nothing more is asked then, and no line is made.
 */
export async function askPayers(
  first: IteratorResult<StatusTarget>,
  targets: AsyncIterator<StatusTarget>,
  asking: Asking,
  ids: string[],
): Promise<{ asked: Array<Promise<void>>; inputError: unknown }> {
  let allRead!: (read: boolean) => void;
  const inputRead = new Promise<boolean>((done) => (allRead = done));
  const asked: Array<Promise<void>> = [];
  let inputError: unknown;
  try {
    for (let next = first; !next.done; next = await targets.next()) {
      const target = next.value;
      const seq = asking.sink.reserve();
      ids.push(target.clientUserId);
      asked.push(askPayer(target, seq, asking, inputRead));
    }
  } catch (error) {
    // A row the reader cannot get past: nothing more is asked, and no status.csv stands for the whole input.
    inputError = error;
    asking.client.stop('interrupted', 'stopped: the input could not be read to its end');
  }
  allRead(inputError === undefined);
  return { asked, inputError };
}

/** One payer: read, then (once the whole input is read) its line made in its place `seq`. */
async function askPayer(target: StatusTarget, seq: number, asking: Asking, inputRead: Promise<boolean>): Promise<void> {
  const { client } = asking;
  const memory = await asking.journaled(target.clientUserId);
  const reads = await checkPayer(client, target.clientUserId, memory?.ready === true, asking.slots);
  if (!(await inputRead)) return;
  const { checkedAt: _, ready: __, ...kept } = memory ?? {};
  const known = { ...target.links, ...kept };
  const status = payerStatus(target, reads, known, new Date(), client.stopped()?.message);
  // A payer with nothing left to do needs no mail: a refusal then changes nothing.
  const refused = status.category === 'payable' ? undefined : await asking.mailRefused?.(target.clientUserId);
  if (refused !== undefined) status.errors.push(mailRefusedNote(refused));
  const who = await asking.who?.(target.clientUserId);
  asking.sink.complete(seq, who === undefined ? status : { ...status, who });
}

/**
 * The payer's reads: its status, and its stored bank accounts only where its line depends on them (a payer ready
 * for an account: payable, or its account still pending). Read together with the status where the journal saw the
 * payer ready, one after the other otherwise: a read costs as much of the rate cap as a create.
 */
async function checkPayer(
  client: ApiClient,
  id: string,
  readyBefore: boolean,
  slots: LimitFunction,
): Promise<StatusReads> {
  const [payer, early] = await slots(() =>
    Promise.all([client.readPayer(id), readyBefore ? client.readPaymentDetails(id) : undefined]),
  );
  if (early !== undefined) return { payer, accounts: early };
  const matters = payer.ok && payer.body.found && readyForAccount(payer.body);
  return { payer, accounts: matters ? await slots(() => client.readPaymentDetails(id)) : undefined };
}
