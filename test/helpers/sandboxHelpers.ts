// Shared by the test/sandbox-*.test.ts files: start a sandbox per test, talk real HTTP to it.
import { request as httpRequest } from 'node:http';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

export const KEY = 'test-key';

const open: SandboxHandle[] = [];

/** Starts a sandbox on a free loopback port with the test key; closeSandboxes() (in afterEach) stops it. */
export async function start(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const sandbox = await startSandbox({ port: 0, apiKey: KEY, ...options });
  open.push(sandbox);
  return sandbox;
}

export async function closeSandboxes(): Promise<void> {
  await Promise.all(open.splice(0).map((s) => s.close()));
}

export function payer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    clientUserId: 'payer-1',
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    beneficiaryType: 'individual',
    dateOfBirth: '1980-12-31',
    addressLine1: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    postcode: '62701',
    country: 'US',
    nationality: 'US',
    phone: '+12175550100',
    ssn: '123-45-6789',
    ...overrides,
  };
}

export function paymentDetail(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    bankName: 'First Bank',
    accountName: 'Ada Lovelace',
    beneficiaryType: 'individual',
    currency: 'USD',
    addressLine1: '1 Main St',
    city: 'Springfield',
    country: 'US',
    dateOfBirth: '1980-12-31',
    postalCode: '62701',
    accountNumber: '000123456789',
    routingNumber: '021000021',
    accountType: 'checking',
    ...overrides,
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer is JSON, else the text. */
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the answer it asked for
  body: any;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  /** Replaces the default headers (x-api-key and JSON content type) when given. */
  headers?: Record<string, string>;
  /** Added to the default headers. */
  extraHeaders?: Record<string, string>;
  signal?: AbortSignal;
}

export async function call(
  sandbox: SandboxHandle,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const headers = options.headers ?? { 'x-api-key': KEY, 'content-type': 'application/json', ...options.extraHeaders };
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const response = await fetch(`${sandbox.url}${path}`, { method, headers, body, signal: options.signal });
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
  return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text, text };
}

export const createPayer = (
  sandbox: SandboxHandle,
  overrides: Record<string, unknown> = {},
  extraHeaders?: Record<string, string>,
) => call(sandbox, 'POST', '/v2/payer', { body: payer(overrides), extraHeaders });

/**
 * One request over node:http without keep-alive, resolving to the status or rejecting with the socket
 * error: fetch hides a reset behind "fetch failed", this shows ECONNRESET / "socket hang up".
 */
export function rawPost(sandbox: SandboxHandle, path: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${sandbox.url}${path}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
