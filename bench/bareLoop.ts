// Run as its own process by the cpu scenario: the floor under the product's CPU per request. It sends what a first
// run sends for each row (create compliance with the read of stored accounts alongside, then the payment details and
// the agreement together), `inFlight` rows at a time, with nothing else: no validation, no journal, no limiter, no
// results. `http` uses Node's bare http.request, `got` the got instance the product builds (createHttpClient).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createHttpClient } from '../src/execute/httpClient.js';

interface Bodies {
  compliance: Record<string, unknown>;
  paymentDetail: Record<string, unknown>;
}

const [url = '', mode = 'got', rowsArg = '2000', inFlightArg = '16', prefix = 'bare', bodiesFile = ''] =
  process.argv.slice(2);
const ROWS = Number(rowsArg);
const IN_FLIGHT = Number(inFlightArg);
const API_KEY = process.env.PAYER_API_KEY ?? '';
const bodies = JSON.parse(readFileSync(bodiesFile, 'utf8')) as Bodies;

const api = createHttpClient({ baseUrl: url, apiKey: API_KEY, timeoutMs: 30_000 });
const agent = new Agent({ keepAlive: true });

function viaGot(method: string, path: string, body?: object): Promise<number> {
  return api(path, { method: method as 'GET', ...(body === undefined ? {} : { json: body }) }).then(
    (r) => r.statusCode,
  );
}

function viaHttp(method: string, path: string, body?: object): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = { 'x-api-key': API_KEY, 'user-agent': 'payer-onboard' };
    if (data !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(data);
    }
    const req = request(`${url}/${path}`, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        JSON.parse(text);
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

const send = mode === 'http' ? viaHttp : viaGot;

async function row(i: number): Promise<void> {
  const id = `${prefix}-${String(i).padStart(7, '0')}`;
  const path = `v2/payer/${encodeURIComponent(id)}`;
  await Promise.all([
    send('POST', 'v1/payer', { ...bodies.compliance, clientUserId: id, email: `${id}@example.com` }),
    send('GET', `${path}/payment-details`),
  ]);
  await Promise.all([
    send('POST', `${path}/payment-details`, bodies.paymentDetail),
    send('PATCH', path, { agreementCompleted: true }),
  ]);
}

let next = 1;
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (next <= ROWS) await row(next++);
  }),
);
agent.destroy();
