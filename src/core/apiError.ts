import { STATUS_CODES } from 'node:http';
import { PayerOnboardError } from './errors.js';
import type { Step } from './types.js';

// A call's failure as every stage reads it: the plan decides on its kind and status, the writers render its words.

/** A step, or `status` for the read of a payer's statuses. */
export type CallStep = Step | 'status';

/** The most an answer's body may hold: the service's largest answers are a few KB; 48 answers of 50 MB took 2.7 GB. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** The code of an answer cut off at MAX_ANSWER_BYTES: a failure after the service was reached, so an unclear answer. */
export const ANSWER_TOO_LARGE = 'ERR_ANSWER_TOO_LARGE';

/**
 * `unclear`: a 2xx whose body is not the operation's answer (an HTML page, nothing, another shape): whether it acted
 * is unknown. `bad-route`: a clientUserId that cannot be one segment of the path; nothing was sent.
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'stopped' | 'unclear' | 'bad-route';

export interface ApiErrorInit {
  step: CallStep;
  kind: ApiErrorKind;
  retryable: boolean;
  /** HTTP status, for kind 'http'. */
  status?: number;
  /** The server's own words, scrubbed (scrubServerText), for kind 'http'. */
  serverMessage?: string;
  /** Node/got error code (`ECONNRESET`, `ETIMEDOUT`...), for kind 'network' and 'timeout'. */
  networkCode?: string;
  /** The per-attempt timeout, for kind 'timeout'. */
  timeoutMs?: number;
  /** Why nothing was sent, for kind 'stopped'. */
  stoppedBecause?: string;
  /** What came back instead of the answer (`200 text/html`), for kind 'unclear'. */
  answered?: string;
  /** Why the path could not be built, for kind 'bad-route'. */
  routeProblem?: string;
  /** The got error, if any. Its `options` (which hold the key and the body) are made non-enumerable first. */
  cause?: unknown;
}

/**
 * A call that failed for good (or was never sent because the client stopped).
 * The message is what goes into results.csv: `compliance: HTTP 400 Invalid bank account details`.
 * It never holds the API key or a request body value (see scrubServerText).
 */
export class ApiError extends PayerOnboardError {
  readonly step: CallStep;
  readonly kind: ApiErrorKind;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly serverMessage: string | undefined;
  readonly networkCode: string | undefined;
  /** What went wrong, without the step: `HTTP 400 Invalid bank account details`. */
  readonly detail: string;

  constructor(init: ApiErrorInit) {
    const detail = describe(init);
    super(
      'E_API',
      `${init.step}: ${detail}`,
      1,
      init.cause === undefined ? undefined : { cause: hideGotOptions(init.cause) },
    );
    this.detail = detail;
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
      return `HTTP ${status}${words === '' ? '' : ` ${words}`}`;
    }
    case 'network':
      if (init.networkCode === ANSWER_TOO_LARGE)
        return `unclear answer: its body passed ${MAX_ANSWER_BYTES / 1024 / 1024} MB and was cut off`;
      return `network error ${init.networkCode ?? 'unknown'}`;
    case 'timeout':
      return `timed out after ${formatSeconds(init.timeoutMs ?? 0)} s`;
    case 'stopped':
      return `not sent, ${init.stoppedBecause ?? 'client stopped'}`;
    case 'unclear':
      return `answered ${init.answered ?? `HTTP ${init.status ?? 200}`}, not the API's answer`;
    case 'bad-route':
      return init.routeProblem ?? 'not sent: no such route';
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
