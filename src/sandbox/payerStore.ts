import type { AgreementRequest, ComplianceRequest, ComplianceResponse, PaymentDetailRequest, PaymentDetailResponse } from '../schema/index.js';
import type { DuplicateMode } from './options.js';
import { nestError } from './nestError.js';
import { randomUuid, type Rng } from './rng.js';

// What the sandbox remembers about payers, and the three operations on it. Plain synchronous code:
// the server calls an operation in one turn of the event loop, so concurrent requests cannot interleave
// inside one (two creates of the same clientUserId: exactly one is created).

export interface Answer {
  status: number;
  body: unknown;
}

interface PaymentDetailRecord {
  id: string;
  /** The request body exactly as received (text), when the sandbox keeps requests. */
  requestText: string | undefined;
  response: PaymentDetailResponse;
}

interface PayerRecord {
  clientUserId: string;
  userId: string;
  requestText: string | undefined;
  response: ComplianceResponse;
  agreementCompleted: boolean;
  paymentDetails: PaymentDetailRecord[];
}

/** A payer as the sandbox stored it, for tests: the bodies as received, and the answers given. */
export interface StoredPayer {
  clientUserId: string;
  userId: string;
  /** The create-compliance body as received (parsed JSON); undefined when keepRequests is off. */
  request: unknown;
  response: ComplianceResponse;
  agreementCompleted: boolean;
  paymentDetails: Array<{ id: string; request: unknown; response: PaymentDetailResponse }>;
}

export interface StoreEvents {
  payerCreated(): void;
  duplicatePayer(): void;
  paymentDetailCreated(): void;
  agreementUpdated(completedNow: boolean): void;
}

export class PayerStore {
  private payers = new Map<string, PayerRecord>();

  constructor(
    private readonly config: { duplicates: DuplicateMode; keepRequests: boolean; linkBase: () => string },
    private readonly ids: () => Rng,
    private readonly events: StoreEvents,
  ) {}

  createCompliance(request: ComplianceRequest, requestText: string): Answer {
    const existing = this.payers.get(request.clientUserId);
    if (existing !== undefined) {
      this.events.duplicatePayer();
      if (this.config.duplicates === 'return-existing') return { status: 200, body: this.currentCompliance(existing) };
      return { status: 409, body: nestError(409, `Payer with client user ID ${request.clientUserId} already exists`) };
    }
    const userId = randomUuid(this.ids());
    const base = this.config.linkBase();
    const response: ComplianceResponse = {
      status: { agreementStatus: 'not_started', kycStatus: 'not_started' },
      agreementUrl: `${base}/__sandbox/agreement/${userId}`,
      kycUrl: `${base}/__sandbox/kyc/${userId}`,
      userId,
    };
    this.payers.set(request.clientUserId, {
      clientUserId: request.clientUserId,
      userId,
      requestText: this.config.keepRequests ? requestText : undefined,
      response,
      agreementCompleted: false,
      paymentDetails: [],
    });
    this.events.payerCreated();
    return { status: 200, body: response };
  }

  createPaymentDetail(clientUserId: string, request: PaymentDetailRequest, requestText: string): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return { status: 404, body: nestError(404, `User with ID ${clientUserId} not found`) };
    const id = randomUuid(this.ids());
    // The documented fields, plus a few harmless ones; account numbers are not echoed back.
    const response: PaymentDetailResponse = {
      payment_detail: {
        id,
        clientUserId,
        bankName: request.bankName,
        accountName: request.accountName,
        currency: request.currency,
        beneficiaryType: request.beneficiaryType,
        rails: request.rails ?? 'local',
        country: request.country,
      },
    };
    payer.paymentDetails.push({ id, requestText: this.config.keepRequests ? requestText : undefined, response });
    this.events.paymentDetailCreated();
    return { status: 201, body: response };
  }

  updateAgreement(clientUserId: string, request: AgreementRequest): Answer {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return { status: 404, body: nestError(404, `Payer with client user ID ${clientUserId} not found`) };
    const completedNow = request.agreementCompleted && !payer.agreementCompleted;
    payer.agreementCompleted = request.agreementCompleted;
    this.events.agreementUpdated(completedNow);
    return { status: 200, body: { success: true } };
  }

  get(clientUserId: string): StoredPayer | undefined {
    const payer = this.payers.get(clientUserId);
    if (payer === undefined) return undefined;
    return {
      clientUserId: payer.clientUserId,
      userId: payer.userId,
      request: parse(payer.requestText),
      response: payer.response,
      agreementCompleted: payer.agreementCompleted,
      paymentDetails: payer.paymentDetails.map((d) => ({ id: d.id, request: parse(d.requestText), response: d.response })),
    };
  }

  get size(): number {
    return this.payers.size;
  }

  clear(): void {
    this.payers.clear();
  }

  /** A repeated create answers the payer's state now: once the agreement is completed it says so. */
  private currentCompliance(payer: PayerRecord): ComplianceResponse {
    if (!payer.agreementCompleted) return payer.response;
    return { ...payer.response, status: { ...payer.response.status, agreementStatus: 'completed' } };
  }
}

function parse(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}
