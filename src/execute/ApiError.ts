import { STATUS_CODES } from 'node:http';
import { PayerOnboardError } from '../errors.js';
import type { Step } from '../types.js';

/** A step, or `status` for the read of a payer's statuses. */
export type CallStep = Step | 'status';

export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'stopped';

export interface ApiErrorInit {
  step: CallStep;
  kind: ApiErrorKind;
  retryable: boolean;
  /** HTTP status, for kind 'http'. */
  status?: number;
  /** The server's own words (already cleaned of request values), for kind 'http'. */
  serverMessage?: string;
  /** Node/got error code (`ECONNRESET`, `ETIMEDOUT`...), for kind 'network' and 'timeout'. */
  networkCode?: string;
  /** The per-attempt timeout, for kind 'timeout'. */
  timeoutMs?: number;
  /** Why nothing was sent, for kind 'stopped'. */
  stoppedBecause?: string;
  /** The got error, if any. Its `options` (which hold the key and the body) are made non-enumerable first. */
  cause?: unknown;
}

/**
 * A call that failed for good (or was never sent because the client stopped).
 * The message is what goes into results.csv: `compliance: HTTP 400 Invalid bank account details`.
 * It never holds the API key or a request body value (see cleanServerMessage).
 */
export class ApiError extends PayerOnboardError {
  readonly step: CallStep;
  readonly kind: ApiErrorKind;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly serverMessage: string | undefined;
  readonly networkCode: string | undefined;

  constructor(init: ApiErrorInit) {
    super('E_API', describe(init), 1, init.cause === undefined ? undefined : { cause: hideGotOptions(init.cause) });
    this.step = init.step;
    this.kind = init.kind;
    this.retryable = init.retryable;
    this.status = init.status;
    this.serverMessage = init.serverMessage;
    this.networkCode = init.networkCode;
  }
}

function describe(init: ApiErrorInit): string {
  switch (init.kind) {
    case 'http': {
      const status = init.status ?? 0;
      const words = init.serverMessage ?? STATUS_CODES[status] ?? '';
      return `${init.step}: HTTP ${status}${words === '' ? '' : ` ${words}`}`;
    }
    case 'network':
      return `${init.step}: network error ${init.networkCode ?? 'unknown'}`;
    case 'timeout':
      return `${init.step}: timed out after ${formatSeconds(init.timeoutMs ?? 0)} s`;
    case 'stopped':
      return `${init.step}: not sent, ${init.stoppedBecause ?? 'client stopped'}`;
  }
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms) / 1000);
}

/**
 * got's RequestError carries `options` as an enumerable property, and got's Options print their
 * internals (headers with x-api-key, the JSON body) under util.inspect and pino's error serializer.
 * Keep the property for debugging but take it out of every enumeration.
 */
function hideGotOptions(error: unknown): unknown {
  if (error !== null && typeof error === 'object' && Object.prototype.propertyIsEnumerable.call(error, 'options')) {
    Object.defineProperty(error, 'options', { enumerable: false });
  }
  return error;
}
