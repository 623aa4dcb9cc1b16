// Run as its own process by the client-cost scenario: the CPU one request costs the HTTP layer alone, got (what
// the product uses) beside Node's bare http.request, against the same loopback server answering 200 at once.
// It tells how much of the client's CPU per row no change to the product's own code can remove.
import got from 'got';
import { Agent, request } from 'node:http';

const [url = '', mode = 'got', countArg = '6000'] = process.argv.slice(2);
const COUNT = Number(countArg);
const IN_FLIGHT = 64;
const BODY = { agreementCompleted: true };

const api = got.extend({
  prefixUrl: url,
  responseType: 'json',
  throwHttpErrors: false,
  retry: { limit: 0 },
  timeout: { request: 30_000 },
  followRedirect: false,
});
const agent = new Agent({ keepAlive: true });

function viaGot(): Promise<unknown> {
  return api('agreement', { method: 'PATCH', json: BODY, headers: { 'x-api-key': 'k' } }).then((r) => r.body);
}

function viaHttp(): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(BODY);
    const req = request(
      `${url}/agreement`,
      {
        method: 'PATCH',
        agent,
        headers: { 'x-api-key': 'k', 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const one = mode === 'http' ? viaHttp : viaGot;

/** `n` requests, IN_FLIGHT at a time. */
async function send(n: number): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started++ < n) await one();
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

await send(500); // warm up: connections open, code compiled
const cpu = process.cpuUsage();
const started = performance.now();
await send(COUNT);
const used = process.cpuUsage(cpu);
process.stdout.write(
  JSON.stringify({
    cpuUsPerRequest: (used.user + used.system) / COUNT,
    perSecond: COUNT / ((performance.now() - started) / 1000),
  }),
);
agent.destroy();
