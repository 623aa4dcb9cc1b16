import type {
  AgreementRequest,
  ComplianceRequest,
  PaymentDetailRequest,
  PayerStatusResponse,
} from '../core/schemas.js';
import {
  accountStatus,
  listedAccount,
  newAccount,
  sameNumbers,
  type AccountRecord,
  type AccountStatus,
} from './bankAccounts.js';
import type { DuplicateMode, KycGate } from '../options/sandboxOptions.js';
import { nestError } from './http.js';
import { randomUuid, type Rng } from './faults.js';
import {
  complianceAnswer,
  type KycStatus,
  kycNow,
  newPayer,
  type PayerRecord,
  payerStatus,
  reportedKyc,
  type StoredPayer,
  storedPayer,
} from './payers.js';

// What the sandbox remembers about payers, and the operations on it. Plain synchronous code: the server calls an
// operation in one turn of the event loop, so concurrent requests cannot interleave inside one (two creates of the
// same clientUserId: exactly one is created). What a payer's statuses are at a given time is payers.ts's; what a
// bank account's is, bankAccounts.ts's.

export interface Answer {
  status: number;
  body: unknown;
}

export interface StoreConfig {
  duplicates: DuplicateMode;
  kycGate: KycGate;
  /** The agreement's PATCH is refused (500) until the payer's KYC is approved. */
  agreementGate: boolean;
  kycAfter: number | undefined;
  accountApproveMs: number;
  maskNumbers: boolean;
  /** The reads list each account as only its id, userId, bankName and status. */
  bareReads: boolean;
  /** The word an approved KYC is reported with. */
  kycWord: string;
  keepRequests: boolean;
  linkBase: () => string;
  now: () => number;
}

export type StoreEvent =
  | 'payersCreated'
  | 'duplicatePayers'
  | 'paymentDetailsCreated'
  | 'duplicatePaymentDetails'
  | 'kycRefusals'
  | 'agreementRefusals'
  | 'agreementUpdates'
  | 'agreementsCompleted';

export class PayerStore {
  private payers = new Map<string, PayerRecord>();
  /** The service's own id (`userId`) to the payer's clientUserId: the agreement and KYC links carry the former. */
  private byUserId = new Map<string, string>();
  private accounts = new Map<string, { payer: PayerRecord; account: AccountRecord }>();

  constructor(
    private readonly config: StoreConfig,
    private readonly ids: () => Rng,
    private readonly count: (event: StoreEvent) => void,
    /** Called after an operation on a payer (`created` says what it made): the webhook sender looks at it again. */
    private readonly touched: (clientUserId: string, created?: 'payer' | 'account') => void = () => {},
  ) {}

  /**
   * POST /v1/payer and POST /v2/payer alike: the service documents both as "checks compliance status and returns the
   * URLs", neither as changing what a known payer registered. A known payer's data is never changed.
   */
  createCompliance(request: ComplianceRequest, requestText: string): Answer {
    const existing = this.payers.get(request.clientUserId);
    if (existing !== undefined) {
      this.count('duplicatePayers');
      if (this.config.duplicates === 'conflict') {
        return {
          status: 409,
          body: nestError(409, `Payer with client user ID ${request.clientUserId} already exists`),
        };
      }
      return { status: 200, body: complianceAnswer(existing, this.kyc(existing), this.config.kycWord) };
    }
    const payer = newPayer(
      request,
      this.config.keepRequests ? requestText : undefined,
      randomUuid(this.ids()),
      this.config.linkBase(),
      this.config.now(),
    );
    // With kycAfter 0 the payer is approved at creation, and the first answer already says so.
    payer.response = complianceAnswer(payer, this.kyc(payer), this.config.kycWord);
    this.payers.set(request.clientUserId, payer);
    this.byUserId.set(payer.userId, request.clientUserId);
    this.count('payersCreated');
    this.touched(request.clientUserId, 'payer');
    return { status: 200, body: payer.response };
  }

  createPaymentDetail(clientUserId: string, request: PaymentDetailRequest, requestText: string): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return { status: 404, body: nestError(404, `User with ID ${clientUserId} not found`) };
    if (this.kyc(payer) !== 'approved' && this.config.kycGate !== 'off') {
      this.count('kycRefusals');
      // The real service fails here with an unhandled error rather than a descriptive 4xx.
      return this.config.kycGate === '500'
        ? { status: 500, body: nestError(500) }
        : { status: 400, body: nestError(400, 'Payer KYC is not approved') };
    }
    const account = newAccount(
      randomUuid(this.ids()),
      clientUserId,
      request,
      this.config.keepRequests ? requestText : undefined,
      this.config.now(),
    );
    if (payer.paymentDetails.some((other) => sameNumbers(other.fields, account.fields)))
      this.count('duplicatePaymentDetails');
    payer.paymentDetails.push(account);
    this.accounts.set(account.id, { payer, account });
    this.count('paymentDetailsCreated');
    this.touched(clientUserId, 'account');
    return { status: 201, body: account.response };
  }

  updateAgreement(clientUserId: string, request: AgreementRequest): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined)
      return { status: 404, body: nestError(404, `Payer with client user ID ${clientUserId} not found`) };
    if (this.config.agreementGate && this.kyc(payer) !== 'approved') {
      this.count('agreementRefusals');
      return { status: 500, body: nestError(500) };
    }
    const completedNow = request.agreementCompleted && !payer.agreementCompleted;
    payer.agreementCompleted = request.agreementCompleted;
    this.count('agreementUpdates');
    if (completedNow) this.count('agreementsCompleted');
    this.touched(clientUserId);
    return { status: 200, body: { success: true } };
  }

  readPayer(clientUserId: string): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined)
      return { status: 404, body: nestError(404, `Payer with client user ID ${clientUserId} not found`) };
    return { status: 200, body: payerStatus(payer, this.kyc(payer), this.config.kycWord) };
  }

  /** Every account stored for the payer, or only the one with `paymentDetailsId` when given. */
  readPaymentDetails(clientUserId: string, paymentDetailsId: string | null): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return { status: 404, body: nestError(404, `User with ID ${clientUserId} not found`) };
    const now = this.config.now();
    const paymentDetails = payer.paymentDetails
      .filter((account) => paymentDetailsId === null || account.id === paymentDetailsId)
      .map((account) => {
        const status = accountStatus(account, now, this.config.accountApproveMs);
        return this.config.bareReads
          ? { id: account.id, userId: payer.userId, bankName: account.fields.bankName, status }
          : listedAccount(account, payer, status, this.config.maskNumbers);
      });
    return { status: 200, body: { paymentDetails } };
  }

  /** The person's KYC moved (as the provider would report it); undefined for an unknown payer. */
  setKyc(clientUserId: string, kycStatus: KycStatus | string): PayerStatusResponse | undefined {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return undefined;
    payer.kycStatus = kycStatus === this.config.kycWord ? 'approved' : kycStatus;
    payer.kycPinned = true;
    this.touched(clientUserId);
    return payerStatus(payer, this.kyc(payer), this.config.kycWord);
  }

  /** The provider's check of an account ended (or is pending again); undefined for an unknown id. */
  setPaymentDetailStatus(id: string, status: AccountStatus): { id: string; status: AccountStatus } | undefined {
    const found = this.accounts.get(id);
    if (found === undefined) return undefined;
    found.account.pinned = status;
    this.touched(found.payer.clientUserId);
    return { id, status };
  }

  get(clientUserId: string): StoredPayer | undefined {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return undefined;
    return storedPayer(
      payer,
      reportedKyc(this.kyc(payer), this.config.kycWord),
      this.config.now(),
      this.config.accountApproveMs,
    );
  }

  /** The clientUserId of the payer the service knows by `userId`; undefined for an unknown one. */
  clientUserIdOf(userId: string): string | undefined {
    return this.byUserId.get(userId);
  }

  get size(): number {
    return this.payers.size;
  }

  clear(): void {
    this.payers.clear();
    this.byUserId.clear();
    this.accounts.clear();
  }

  /** The payer's KYC by the store's clock. */
  private kyc(payer: PayerRecord): string {
    return kycNow(payer, this.config.kycAfter, this.config.now());
  }
}
