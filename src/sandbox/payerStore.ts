import { createHash } from 'node:crypto';
import type {
  AgreementRequest,
  ComplianceRequest,
  ComplianceResponse,
  PaymentDetailRequest,
  PaymentDetailResponse,
  PayerStatusResponse,
} from '../schema/index.js';
import {
  accountStatus,
  listedAccount,
  newAccount,
  sameNumbers,
  type AccountRecord,
  type AccountStatus,
} from './bankAccounts.js';
import type { DuplicateMode, KycGate } from './options.js';
import { nestError } from './http.js';
import { randomUuid, type Rng } from './faults.js';

// What the sandbox remembers about payers, and the operations on it. Plain synchronous code: the server calls an
// operation in one turn of the event loop, so concurrent requests cannot interleave inside one (two creates of the
// same clientUserId: exactly one is created). Statuses that move with time are computed from the clock when a payer
// is touched, so no timer runs and an injected clock moves them.

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

export interface Answer {
  status: number;
  body: unknown;
}

interface PayerRecord {
  clientUserId: string;
  userId: string;
  requestText: string | undefined;
  /** Of the payer data as last stored: tells a create-or-update that changes something from one that does not. */
  digest: string;
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
  paymentDetails: Array<{ id: string; request: unknown; response: PaymentDetailResponse; status: AccountStatus }>;
}

export interface StoreConfig {
  duplicates: DuplicateMode;
  kycGate: KycGate;
  kycAfter: number | undefined;
  accountApproveMs: number;
  maskNumbers: boolean;
  keepRequests: boolean;
  linkBase: () => string;
  now: () => number;
}

export type StoreEvent =
  | 'payersCreated'
  | 'duplicatePayers'
  | 'payersUpdated'
  | 'paymentDetailsCreated'
  | 'duplicatePaymentDetails'
  | 'kycRefusals'
  | 'agreementUpdates'
  | 'agreementsCompleted';

export class PayerStore {
  private payers = new Map<string, PayerRecord>();
  private accounts = new Map<string, { payer: PayerRecord; account: AccountRecord }>();

  constructor(
    private readonly config: StoreConfig,
    private readonly ids: () => Rng,
    private readonly count: (event: StoreEvent) => void,
  ) {}

  /** `create` is POST /v1/payer, which never changes a known payer; `upsert` is POST /v2/payer, create or update. */
  createCompliance(request: ComplianceRequest, requestText: string, mode: 'create' | 'upsert'): Answer {
    const existing = this.payers.get(request.clientUserId);
    if (existing !== undefined) {
      this.count('duplicatePayers');
      if (mode === 'upsert') {
        const digest = digestOf(request);
        if (digest !== existing.digest) {
          existing.digest = digest;
          existing.requestText = this.config.keepRequests ? requestText : undefined;
          this.count('payersUpdated');
        }
      } else if (this.config.duplicates === 'conflict') {
        return {
          status: 409,
          body: nestError(409, `Payer with client user ID ${request.clientUserId} already exists`),
        };
      }
      return { status: 200, body: this.compliance(existing) };
    }
    const userId = randomUuid(this.ids());
    const base = this.config.linkBase();
    const payer: PayerRecord = {
      clientUserId: request.clientUserId,
      userId,
      requestText: this.config.keepRequests ? requestText : undefined,
      digest: digestOf(request),
      response: {
        status: { agreementStatus: 'not_started', kycStatus: 'not_started' },
        agreementUrl: `${base}/__sandbox/agreement/${userId}`,
        kycUrl: `${base}/__sandbox/kyc/${userId}`,
        userId,
      },
      createdAt: this.config.now(),
      kycStatus: 'not_started',
      kycPinned: false,
      agreementCompleted: false,
      paymentDetails: [],
    };
    // With kycAfter 0 the payer is approved at creation, and the first answer already says so.
    payer.response = this.compliance(payer);
    this.payers.set(request.clientUserId, payer);
    this.count('payersCreated');
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
    return { status: 201, body: account.response };
  }

  updateAgreement(clientUserId: string, request: AgreementRequest): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined)
      return { status: 404, body: nestError(404, `Payer with client user ID ${clientUserId} not found`) };
    const completedNow = request.agreementCompleted && !payer.agreementCompleted;
    payer.agreementCompleted = request.agreementCompleted;
    this.count('agreementUpdates');
    if (completedNow) this.count('agreementsCompleted');
    return { status: 200, body: { success: true } };
  }

  readPayer(clientUserId: string): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined)
      return { status: 404, body: nestError(404, `Payer with client user ID ${clientUserId} not found`) };
    return { status: 200, body: this.payerStatus(payer) };
  }

  /** Every account stored for the payer, or only the one with `paymentDetailsId` when given. */
  readPaymentDetails(clientUserId: string, paymentDetailsId: string | null): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return { status: 404, body: nestError(404, `User with ID ${clientUserId} not found`) };
    const now = this.config.now();
    const paymentDetails = payer.paymentDetails
      .filter((account) => paymentDetailsId === null || account.id === paymentDetailsId)
      .map((account) =>
        listedAccount(
          account,
          payer,
          accountStatus(account, now, this.config.accountApproveMs),
          this.config.maskNumbers,
        ),
      );
    return { status: 200, body: { paymentDetails } };
  }

  /** The person's KYC moved (as the provider would report it); undefined for an unknown payer. */
  setKyc(clientUserId: string, kycStatus: KycStatus): PayerStatusResponse | undefined {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return undefined;
    payer.kycStatus = kycStatus;
    payer.kycPinned = true;
    return this.payerStatus(payer);
  }

  /** The provider's check of an account ended (or is pending again); undefined for an unknown id. */
  setPaymentDetailStatus(id: string, status: AccountStatus): { id: string; status: AccountStatus } | undefined {
    const found = this.accounts.get(id);
    if (found === undefined) return undefined;
    found.account.pinned = status;
    return { id, status };
  }

  get(clientUserId: string): StoredPayer | undefined {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return undefined;
    const now = this.config.now();
    return {
      clientUserId: payer.clientUserId,
      userId: payer.userId,
      request: parse(payer.requestText),
      response: payer.response,
      kycStatus: this.kyc(payer),
      agreementStatus: agreementStatus(payer),
      agreementCompleted: payer.agreementCompleted,
      paymentDetails: payer.paymentDetails.map((d) => ({
        id: d.id,
        request: parse(d.requestText),
        response: d.response,
        status: accountStatus(d, now, this.config.accountApproveMs),
      })),
    };
  }

  get size(): number {
    return this.payers.size;
  }

  clear(): void {
    this.payers.clear();
    this.accounts.clear();
  }

  /** The create-compliance answer as of now: its statuses are the payer's current ones. */
  private compliance(payer: PayerRecord): ComplianceResponse {
    return { ...payer.response, status: { agreementStatus: agreementStatus(payer), kycStatus: this.kyc(payer) } };
  }

  private payerStatus(payer: PayerRecord): PayerStatusResponse {
    const kycStatus = this.kyc(payer);
    const agreement = agreementStatus(payer);
    return {
      kycStatus,
      agreementStatus: agreement,
      isCompliant: kycStatus === 'approved' && agreement === 'completed',
      userId: payer.userId,
    };
  }

  /** KYC as of now: kycAfter approves a payer once its time has come, unless the admin route set the status. */
  private kyc(payer: PayerRecord): string {
    const after = this.config.kycAfter;
    if (
      !payer.kycPinned &&
      after !== undefined &&
      payer.kycStatus !== 'approved' &&
      this.config.now() - payer.createdAt >= after * 1000
    ) {
      payer.kycStatus = 'approved';
    }
    return payer.kycStatus;
  }
}

function agreementStatus(payer: PayerRecord): 'not_started' | 'completed' {
  return payer.agreementCompleted ? 'completed' : 'not_started';
}

/** Key order does not make two bodies different: the same data is the same digest. */
function digestOf(request: ComplianceRequest): string {
  const sorted = Object.fromEntries(Object.entries(request).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url');
}

function parse(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}
