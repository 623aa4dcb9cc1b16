// What the service's statuses say about a payer, in one place for the plan, the journal's memory of the KYC gate,
// `status` and the reports. The service's published documents spell an approved KYC `approved` in one place and
// `completed` in another, and its payer read carries its own verdict, `isCompliant`. So a decision rests on that
// verdict or on any word for done, never on one spelling; `rejected` and `failed` are final; any other word is
// "not yet", passed on as the service wrote it (with a note where the documents do not use it).

/** What the service said of a payer: its words for KYC and the agreement, and its verdict when a read gave one. */
export interface PayerVerdict {
  kycStatus?: string | undefined;
  agreementStatus?: string | undefined;
  isCompliant?: boolean | undefined;
}

const KYC_DONE = new Set(['approved', 'completed']);
const KYC_REFUSED = new Set(['rejected', 'failed']);

const word = (value: string | undefined) => value?.toLowerCase() ?? '';

/** KYC is done: the service calls the payer compliant, or reports KYC with a word for done. */
export function kycDone(v: PayerVerdict | undefined): boolean {
  return v?.isCompliant === true || KYC_DONE.has(word(v?.kycStatus));
}

/** KYC was refused for good (a payer the service calls compliant never is). */
export function kycRejected(v: PayerVerdict | undefined): boolean {
  return v?.isCompliant !== true && KYC_REFUSED.has(word(v?.kycStatus));
}

/** The agreement is completed, as the service reports it (a compliant payer has completed it). */
export function agreementCompleted(v: PayerVerdict | undefined): boolean {
  return v?.isCompliant === true || word(v?.agreementStatus) === 'completed';
}

// The words the service's documents (and its answers' schemas) use. Another word (a bank account `verified`, an
// agreement `signed`: seen only in a third-party client's fixtures) is shown as the service wrote it, with a note that
// a person must check it: never counted as failed, nor as done.
const KNOWN_WORDS = {
  kycStatus: new Set([
    'not_started',
    'initiated',
    'pending',
    'in_progress',
    'approved',
    'completed',
    'rejected',
    'failed',
    'retry_required',
  ]),
  agreementStatus: new Set(['not_started', 'pending', 'completed', 'rejected', 'failed']),
  account: new Set(['pending', 'approved', 'failed']),
} as const;

export type StatusKind = keyof typeof KNOWN_WORDS;

/** The service's word is one its documents use (absent is no word at all: nothing to check). */
export function knownWord(kind: StatusKind, value: string | undefined): boolean {
  return value === undefined || value === '' || KNOWN_WORDS[kind].has(word(value));
}

const UNKNOWN_NOTE = "not a word this tool knows: check it in the service's dashboard";

/** The service's word as people read it: as written, with the note when it is not one the documents use. */
export function shownWord(kind: StatusKind, value: string | undefined): string {
  if (value === undefined || value === '') return 'unknown';
  return knownWord(kind, value) ? value : `${value}, ${UNKNOWN_NOTE}`;
}

/** Notes on a payer's words its documents do not use, one per word, for an `error` column. */
export function unknownWords(v: PayerVerdict | undefined, accountWords: readonly string[] = []): string[] {
  const notes: string[] = [];
  if (!knownWord('kycStatus', v?.kycStatus)) notes.push(`kycStatus ${v!.kycStatus}: ${UNKNOWN_NOTE}`);
  if (!knownWord('agreementStatus', v?.agreementStatus))
    notes.push(`agreementStatus ${v!.agreementStatus}: ${UNKNOWN_NOTE}`);
  for (const status of new Set(accountWords))
    if (!knownWord('account', status)) notes.push(`a bank account's status ${status}: ${UNKNOWN_NOTE}`);
  return notes;
}

/** Ready for a bank account: compliant by the service's verdict, or KYC and the agreement both reported done. */
export function readyForAccount(v: PayerVerdict | undefined): boolean {
  return kycDone(v) && agreementCompleted(v);
}
