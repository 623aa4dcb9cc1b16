import type { JournalPlace } from '../journal/openJournal.js';
import { type JournaledPayer, journaledPayers } from '../journal/RowJournal.js';
import { agreementCompleted, kycDone, kycRejected } from '../plan/verdict.js';
import type { Category } from '../status/payerStatus.js';
import type { DirectoryEntry, PayerDirectoryTables, Store } from '../store/Store.js';
import type { PayerBook } from './payerBook.js';

// Where a payer stands, as their own page tells them: what the journal last saw of them at the service, whether they
// signed on the page, what the Payers page's reads say of their bank account, and whether rows of theirs still wait.
// Read from the store alone: opening the page asks the service nothing.

/** What the page is made from: read by `readPayerFacts`, turned into steps by `payerSteps` (pure). */
export interface PayerFacts {
  entry?: DirectoryEntry | undefined;
  journal?: JournaledPayer | undefined;
  /** A signature is recorded in the store (on this page, or the team's). */
  signed: boolean;
  /** The Payers page's category: only a read of the accounts says payable, or failed. */
  category?: Category | undefined;
  /** Rows of the payer wait in the store: a bank account may still be on its way. */
  waiting: boolean;
}

export type AgreementStep = 'sign' | 'recording' | 'done' | 'problem' | 'not-ready';
export type KycStep = 'not-started' | 'pending' | 'retry' | 'approved' | 'rejected' | 'not-ready';
/** `none`: no bank account is on its way (the rows gave none), so nothing is needed. */
export type BankStep = 'waiting' | 'adding' | 'checking' | 'approved' | 'failed' | 'none';

/** What the page shows: the name it greets, each step's state and link, and whether nothing more is needed. */
export interface PayerSteps {
  /** The first name; a business's company name when it has none; '' for neither. */
  name: string;
  agreement: AgreementStep;
  agreementUrl?: string | undefined;
  kyc: KycStep;
  kycUrl?: string | undefined;
  bank: BankStep;
  done: boolean;
}

/** Where the facts are read: serve's store (its journal, directory), the Payers page's book, the waiting rows. */
export interface PayerFactSources {
  journal: JournalPlace & { open: Store };
  directory: PayerDirectoryTables;
  book: Pick<PayerBook, 'line'>;
  /** Whether rows of the payer wait in the store. */
  waiting: (clientUserId: string) => Promise<boolean>;
}

export async function readPayerFacts(sources: PayerFactSources, clientUserId: string): Promise<PayerFacts> {
  const [entries, journal, signatures, line, waiting] = await Promise.all([
    sources.directory.entries([clientUserId]),
    journaledPayers(sources.journal, [clientUserId]),
    sources.directory.signatures([clientUserId]),
    sources.book.line(clientUserId),
    sources.waiting(clientUserId),
  ]);
  return {
    entry: entries.get(clientUserId),
    journal: journal(clientUserId),
    signed: signatures.has(clientUserId),
    category: line?.category,
    waiting,
  };
}

/** The service's KYC words that ask the person to go through it again. */
const KYC_AGAIN = new Set(['retry_required']);
const KYC_NOT_STARTED = new Set(['', 'not_started']);
const AGREEMENT_REFUSED = new Set(['rejected', 'failed']);

export function payerSteps(facts: PayerFacts): PayerSteps {
  const { journal, entry } = facts;
  const agreement = agreementStep(facts);
  const kyc = kycStep(journal);
  const bank = bankStep(facts, agreement === 'done' && kyc === 'approved');
  return {
    name: entry?.firstName ?? entry?.companyName ?? '',
    agreement,
    agreementUrl: journal?.agreementUrl,
    kyc,
    kycUrl: journal?.kycUrl,
    bank,
    done: agreement === 'done' && kyc === 'approved' && (bank === 'approved' || bank === 'none'),
  };
}

function agreementStep({ journal, signed }: PayerFacts): AgreementStep {
  if (agreementCompleted(journal)) return 'done';
  if (signed) return 'recording';
  if (AGREEMENT_REFUSED.has(journal?.agreementStatus?.toLowerCase() ?? '')) return 'problem';
  return journal?.agreementUrl ? 'sign' : 'not-ready';
}

function kycStep(journal: JournaledPayer | undefined): KycStep {
  if (kycDone(journal)) return 'approved';
  if (kycRejected(journal)) return 'rejected';
  if (!journal?.kycUrl) return 'not-ready';
  const word = journal.kycStatus?.toLowerCase() ?? '';
  if (KYC_NOT_STARTED.has(word)) return 'not-started';
  return KYC_AGAIN.has(word) ? 'retry' : 'pending';
}

/**
 * Where the bank account stands: the service's word once a read gave it (payable, failed); stored and being checked;
 * on its way while rows wait; none needed once the steps are done and nothing waits.
 */
function bankStep(facts: PayerFacts, ready: boolean): BankStep {
  if (facts.category === 'payable') return 'approved';
  if (facts.category === 'bank-failed') return 'failed';
  if ((facts.journal?.accounts ?? 0) > 0) return 'checking';
  if (!ready) return 'waiting';
  return facts.waiting ? 'adding' : 'none';
}
