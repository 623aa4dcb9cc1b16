import type { IncomingHttpHeaders } from 'node:http';
import { type CallStep, ApiError } from '../core/apiError.js';
import { serverMessage } from '../core/schemas.js';
import { type PersonalData, scrubServerText } from './scrubServerText.js';

/** HTTP statuses worth another attempt: a timeout, a rate limit, or a server or gateway fault that may pass. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** Failures to connect at all: the name, the route, the port or the handshake. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
]);

/** Network failures worth another attempt: the connection broke, was refused, or the name did not resolve for now. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  ...UNREACHABLE_CODES,
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EADDRINUSE',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

export interface RequestFailure {
  kind: 'network' | 'timeout';
  /** `ECONNRESET`, `ETIMEDOUT`, ... */
  code: string;
  retryable: boolean;
}

/** What a got error that came without a usable response means for the retry loop. */
function classifyRequestError(error: unknown): RequestFailure {
  const name = error instanceof Error ? error.name : '';
  const code = errorCode(error) ?? (name === '' ? 'ERR_UNKNOWN' : name);
  if (name === 'TimeoutError') return { kind: 'timeout', code, retryable: true };
  // A response cut off mid-body (got's ReadError) is a broken connection, whatever its code.
  return { kind: 'network', code, retryable: RETRYABLE_CODES.has(code) || name === 'ReadError' };
}

function errorCode(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code !== 'ERR_GOT_REQUEST_ERROR' ? code : undefined;
}

/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). Undefined when absent or unreadable; a date in the past is 0.
 */
function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export interface Backoff {
  /** Delay cap of the first retry (ms); doubles per retry. */
  baseMs: number;
  /** No single delay is longer than this (ms). */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 500, maxMs: 30_000 };

/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter"):
 * a random delay in [0, min(maxMs, baseMs * 2^retry)), so clients that failed together do not retry together.
 * `retry` counts from 0 for the first retry.
 */
export function backoffDelay(retry: number, backoff: Backoff, random: () => number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(retry, 30));
  return Math.floor(random() * ceiling);
}

/** How one attempt ended: not sent (the client had stopped), an HTTP answer, or a failure before any answer. */
export type AttemptEnd =
  | { kind: 'not-sent' }
  | { kind: 'response'; status: number; body: unknown; headers: IncomingHttpHeaders; pauseMs?: number }
  | { kind: 'failure'; failure: RequestFailure; error: unknown };

export const NOT_SENT: AttemptEnd = { kind: 'not-sent' };

/** An attempt the service cannot have acted on: it said so (429), or the connection never opened. */
export function certainlyNotStored(end: AttemptEnd): boolean {
  if (end.kind === 'response') return end.status === 429;
  if (end.kind !== 'failure') return false;
  const code = end.failure.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || isTlsFailure(code);
}

/** A TLS handshake that failed: a certificate refused, or a protocol the two ends do not share. */
export function isTlsFailure(code: string): boolean {
  return /^ERR_(TLS|SSL)_|CERT|^EPROTO$|SIGNATURE|^ERR_OSSL_/.test(code);
}

/**
 * The code that names why a request could not reach the service at all (`ECONNREFUSED`, `ENOTFOUND`, a TLS
 * failure, `ETIMEDOUT`), or undefined for a failure after the service was reached (a reset, a cut-off answer).
 */
export function unreachableCause(failure: RequestFailure): string | undefined {
  if (failure.kind === 'timeout') return 'ETIMEDOUT';
  return UNREACHABLE_CODES.has(failure.code) || isTlsFailure(failure.code) ? failure.code : undefined;
}

/**
 * got answers a 2xx whose body is not JSON with a ParseError: an answer, with `body` undefined (the readers then call
 * it unclear). Anything else is a network failure.
 */
export function fromGotError(error: unknown): AttemptEnd {
  const response = (
    error as { response?: { statusCode?: unknown; body?: unknown; headers?: IncomingHttpHeaders } } | null
  )?.response;
  if (response !== undefined && typeof response.statusCode === 'number') {
    const isParseError = error instanceof Error && error.name === 'ParseError';
    return {
      kind: 'response',
      status: response.statusCode,
      body: isParseError ? undefined : response.body,
      headers: response.headers ?? {},
    };
  }
  return { kind: 'failure', failure: classifyRequestError(error), error };
}

/** The error a failed attempt means, its server message scrubbed of the row's personal values and the key. */
export function attemptError(
  step: CallStep,
  personal: PersonalData,
  end: Exclude<AttemptEnd, { kind: 'not-sent' }>,
  apiKey: string,
  timeoutMs: number,
): ApiError {
  if (end.kind === 'response') {
    return new ApiError({
      step,
      kind: 'http',
      status: end.status,
      serverMessage: scrubServerText(serverMessage(end.body), personal, apiKey),
      retryable: RETRYABLE_STATUSES.has(end.status),
    });
  }
  return new ApiError({
    step,
    kind: end.failure.kind,
    networkCode: end.failure.code,
    timeoutMs,
    retryable: end.failure.retryable,
    cause: end.error,
  });
}

/**
 * What a 2xx that is not the operation's answer was, for a message: `200 text/html`, `200 with an empty body`,
 * `201 application/json without payment_detail.id` (`lacks`: what the reader missed in a JSON body).
 */
export function describeAnswer(status: number, headers: IncomingHttpHeaders, body: unknown, lacks: string): string {
  const named = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  // The server's words: only a media type's own shape is repeated, never whatever else the header holds.
  const type =
    named === undefined || /^[\w.+-]{1,40}\/[\w.+-]{1,60}$/.test(named) ? named : 'of an unusual content type';
  if (body === '') return `${status}${type === undefined ? '' : ` ${type}`} with an empty body`;
  // got's ParseError: the body was not JSON, whatever its type said.
  if (body === undefined) return `${status} ${type === undefined || type === '' ? 'without a content type' : type}`;
  return `${status} ${type ?? 'JSON'} ${lacks}`;
}

export interface RetryTiming {
  backoff: Backoff;
  random: () => number;
  /** A longer Retry-After is cut to this. */
  maxRetryAfterMs: number;
}

/** How long to wait before attempt `attempt + 1`: the server's Retry-After when it gave one, else jittered backoff. */
export function retryDelay(end: AttemptEnd, attempt: number, timing: RetryTiming): number {
  const retryAfter = end.kind === 'response' ? parseRetryAfter(end.headers['retry-after'], Date.now()) : undefined;
  if (retryAfter !== undefined) return Math.min(retryAfter, timing.maxRetryAfterMs);
  const jittered = backoffDelay(attempt, timing.backoff, timing.random);
  // A 429 without Retry-After pauses everyone; full jitter alone could make that pause nothing.
  return end.kind === 'response' && end.status === 429 ? Math.max(timing.backoff.baseMs, jittered) : jittered;
}
