import got, { type CancelableRequest, type Got, type RequestFunction, type Response } from 'got';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ANSWER_TOO_LARGE, MAX_ANSWER_BYTES } from '../core/apiError.js';

/**
 * The one got instance every call of a command goes through. Retries are the client's own (`retry.limit: 0`), and
 * every status comes back as a response for it to decide.
 *
 * Two settings keep got's cost per request down, both through its documented options and neither changing a
 * request on the wire. On Node 20, an object literal that spreads a non-empty object and then lists properties
 * stores each of those properties the slow way, about a microsecond apiece. got builds Node's request options
 * exactly so, spreading its cache options (four keys, all undefined unless a cache is set) before 30-odd
 * properties: a tenth of a millisecond a request, more than the rest of got's work on it. Empty cache options make
 * that spread free; with no `cache` set they are never read. Those options are also mostly undefined, and Node's
 * http copies and checks each one again (the agent's key, the request's own options): handing it only those that
 * are set saves that too.
 */
export function createHttpClient(options: { baseUrl: string; apiKey: string; timeoutMs: number }): Got {
  return got.extend({
    prefixUrl: options.baseUrl,
    headers: { 'x-api-key': options.apiKey, 'user-agent': 'payer-onboard' },
    responseType: 'json',
    timeout: { request: options.timeoutMs },
    throwHttpErrors: false,
    retry: { limit: 0 },
    // A redirect would carry the x-api-key header to wherever it points; a 3xx is a failure instead.
    followRedirect: false,
    hooks: {
      beforeRequest: [
        (request) => {
          request.cacheOptions = {};
        },
      ],
    },
    request: onlySetOptions,
  });
}

export class AnswerTooLargeError extends Error {
  readonly code = ANSWER_TOO_LARGE;
}

/**
 * The request's response, cut off once its body passes MAX_ANSWER_BYTES (or says it will, by its content-length):
 * got has no size limit, and reads a whole body into memory before it hands it on. A cut-off answer rejects with
 * AnswerTooLargeError, which the client reads like a connection that broke mid-answer.
 */
export async function withinAnswerLimit(request: CancelableRequest<Response>): Promise<Response> {
  let cut = false;
  request.on('downloadProgress', ({ transferred, total }) => {
    if (cut || (transferred <= MAX_ANSWER_BYTES && (total ?? 0) <= MAX_ANSWER_BYTES)) return;
    cut = true;
    request.cancel();
  });
  try {
    return await request;
  } catch (error) {
    if (!cut) throw error;
    throw new AnswerTooLargeError(`the answer passed ${MAX_ANSWER_BYTES / 1024 / 1024} MB and was cut off`, {
      cause: error,
    });
  }
}

/** Node's own request function for the URL's protocol, given only the options that have a value. */
const onlySetOptions: RequestFunction = (url, requestOptions, callback) => {
  const set: Record<string, unknown> = {};
  for (const key in requestOptions) {
    const value = requestOptions[key as keyof typeof requestOptions];
    if (value !== undefined) set[key] = value;
  }
  return url.protocol === 'https:' ? httpsRequest(url, set, callback) : httpRequest(url, set, callback);
};
