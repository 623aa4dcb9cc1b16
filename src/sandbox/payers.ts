import type {
  ComplianceRequest,
  ComplianceResponse,
  PayerStatusResponse,
  PaymentDetailResponse,
} from '../core/schemas.js';
import { accountStatus, type AccountRecord, type AccountStatus } from './bankAccounts.js';

// A stored payer: its record, and its statuses as of a given time. KYC is computed from the clock when a payer is
// touched (kycAfter approves it once its time has come) unless the admin route set it, so no timer runs and an
// injected clock moves it; the agreement is completed by the payer's own call. Plain functions over one record:
// the store (payerStore.ts) keeps the records and answers the requests.

export const KYC_STATUSES = [
  'not_started',
  'initiated',
  'pending',
  'approved',
  'rejected',
  'failed',
  'retry_required',
] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

export interface PayerRecord {
  clientUserId: string;
  userId: string;
  requestText: string | undefined;
  /** The answer given when the payer was created; later answers take their statuses from now. */
  response: ComplianceResponse;
  createdAt: number;
  kycStatus: string;
  /** Set by the admin route: kycAfter no longer moves it. */
  kycPinned: boolean;
  agreementCompleted: boolean;
  paymentDetails: AccountRecord[];
}

/** A payer as the sandbox stored it, for tests: the bodies as received, the current answer and statuses. */
export interface StoredPayer {
  clientUserId: string;
  userId: string;
  /** The last stored create-compliance body (parsed JSON); undefined when keepRequests is off. */
  request: unknown;
  /** The create-compliance answer given when the payer was created (a repeat answers the statuses as they are now). */
  response: ComplianceResponse;
  kycStatus: string;
  agreementStatus: 'not_started' | 'completed';
  agreementCompleted: boolean;
  /** createdAt: epoch ms the account was stored (a benchmark times approval to attachment from it). */
  paymentDetails: Array<{
    id: string;
    request: unknown;
    response: PaymentDetailResponse;
    status: AccountStatus;
    createdAt: number;
  }>;
}

/** A payer just registered: nothing started, its links on the sandbox's own pages. */
export function newPayer(
  request: ComplianceRequest,
  requestText: string | undefined,
  userId: string,
  linkBase: string,
  createdAt: number,
): PayerRecord {
  return {
    clientUserId: request.clientUserId,
    userId,
    requestText,
    response: {
      status: { agreementStatus: 'not_started', kycStatus: 'not_started' },
      agreementUrl: `${linkBase}/__sandbox/agreement/${userId}`,
      kycUrl: `${linkBase}/__sandbox/kyc/${userId}`,
      userId,
    },
    createdAt,
    kycStatus: 'not_started',
    kycPinned: false,
    agreementCompleted: false,
    paymentDetails: [],
  };
}

/** KYC as of `now`: kycAfter approves a payer once its time has come, unless the admin route set the status. */
export function kycNow(payer: PayerRecord, kycAfter: number | undefined, now: number): string {
  if (
    !payer.kycPinned &&
    kycAfter !== undefined &&
    payer.kycStatus !== 'approved' &&
    now - payer.createdAt >= kycAfter * 1000
  ) {
    payer.kycStatus = 'approved';
  }
  return payer.kycStatus;
}

function agreementStatus(payer: PayerRecord): 'not_started' | 'completed' {
  return payer.agreementCompleted ? 'completed' : 'not_started';
}

/**
 * KYC as the answers report it: the service's published documents spell an approved KYC `approved` in one place
 * and `completed` in another, so the sandbox can answer with either (`--kyc-word`); its own rules keep `approved`.
 */
export function reportedKyc(kycStatus: string, approvedWord: string): string {
  return kycStatus === 'approved' ? approvedWord : kycStatus;
}

/** The create-compliance answer with the payer's current statuses. */
export function complianceAnswer(payer: PayerRecord, kycStatus: string, approvedWord: string): ComplianceResponse {
  return {
    ...payer.response,
    status: { agreementStatus: agreementStatus(payer), kycStatus: reportedKyc(kycStatus, approvedWord) },
  };
}

export function payerStatus(payer: PayerRecord, kycStatus: string, approvedWord: string): PayerStatusResponse {
  const agreement = agreementStatus(payer);
  return {
    kycStatus: reportedKyc(kycStatus, approvedWord),
    agreementStatus: agreement,
    isCompliant: kycStatus === 'approved' && agreement === 'completed',
    userId: payer.userId,
  };
}

export function storedPayer(payer: PayerRecord, kycStatus: string, now: number, accountApproveMs: number): StoredPayer {
  return {
    clientUserId: payer.clientUserId,
    userId: payer.userId,
    request: parse(payer.requestText),
    response: payer.response,
    kycStatus,
    agreementStatus: agreementStatus(payer),
    agreementCompleted: payer.agreementCompleted,
    paymentDetails: payer.paymentDetails.map((d) => ({
      id: d.id,
      request: parse(d.requestText),
      response: d.response,
      status: accountStatus(d, now, accountApproveMs),
      createdAt: d.createdAt,
    })),
  };
}

function parse(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}
