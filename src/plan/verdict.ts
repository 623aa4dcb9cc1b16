// What the service's statuses say about a payer, in one place for the plan, the journal's memory of the KYC gate,
// `status` and the reports. The service's published documents spell an approved KYC `approved` in one place and
// `completed` in another, and its payer read carries its own verdict, `isCompliant`. So a decision rests on that
// verdict or on any word for done, never on one spelling; `rejected` and `failed` are final; any other word is
// "not yet", passed on as the service wrote it.

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

/** Ready for a bank account: compliant by the service's verdict, or KYC and the agreement both reported done. */
export function readyForAccount(v: PayerVerdict | undefined): boolean {
  return kycDone(v) && agreementCompleted(v);
}
