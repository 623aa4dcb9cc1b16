import { createHmac } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Figure, withSandbox } from './scenarios.js';
import { SCRATCH } from './spawnCli.js';
import { freePort, health, percentile, startServe, until } from './webhooks.js';

// `serve` (the bin) taking the service's deliveries while one address holds 600 connections that dribble their
// headers: the service gives each delivery 5 s, so every one must be answered 2xx within that, at 1,000 a minute.

const SLOW = 600;
const DELIVERIES = 1000;
const WINDOW_MS = 60_000;
const SECRET = 'whsec-bench-attack-41d0';
/** The attacker's and the service's addresses: every 127.x.y.z is loopback on Linux. */
const ATTACKER = '127.0.0.2';
const SERVICE = '127.0.0.3';

export async function webhookAttack(): Promise<Figure[]> {
  const root = join(SCRATCH, `webhook-attack-${Date.now()}`);
  mkdirSync(join(root, 'inbox', 'incoming'), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  try {
    return await withSandbox({}, async (sandbox) => {
      const serve = startServe(sandbox, root, port, 5, { PAYER_WEBHOOK_SECRET: SECRET });
      const attack = new AbortController();
      try {
        if (!(await until('serve to listen', 30_000, async () => (await health(url))?.ok === true)))
          throw new Error(`bench: webhook-attack: serve did not answer: ${(await serve.stop()).stderr.slice(-2000)}`);
        const attacking = holdSlowConnections(port, attack.signal);
        await attacking.opened;
        const answers = await deliverAll(url);
        const metrics = await (await fetch(`${url}/metrics`)).text();
        attack.abort();
        await attacking.done;
        return figures(answers, attacking.stats, metrics);
      } finally {
        attack.abort();
        await serve.stop().catch(() => undefined);
      }
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

interface Answer {
  status: number;
  ms: number;
}

/**
 * SLOW connections from ATTACKER, each sending a header line a byte every second and never ending it; one closed
 * (by serve's caps or its header deadline) is opened again a second later, for as long as the attack goes on.
 */
function holdSlowConnections(port: number, signal: AbortSignal) {
  const stats = { opened: 0, closed: 0 };
  const sockets = new Set<Socket>();
  let first = 0;
  let allOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    allOpened = resolve;
  });
  const open = () => {
    if (signal.aborted) return;
    const socket = connect({ host: '127.0.0.1', port, localAddress: ATTACKER });
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      stats.opened += 1;
      if (++first === SLOW) allOpened();
      socket.write('POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nx-slow: ');
    });
    socket.once('close', () => {
      stats.closed += 1;
      sockets.delete(socket);
      if (!signal.aborted) setTimeout(open, 1000).unref();
    });
  };
  for (let i = 0; i < SLOW; i++) open();
  const drip = setInterval(() => {
    for (const socket of sockets) if (socket.writable) socket.write('a');
  }, 1000);
  const done = new Promise<void>((resolve) => {
    signal.addEventListener('abort', () => {
      clearInterval(drip);
      for (const socket of sockets) socket.destroy();
      resolve();
    });
  });
  return { opened, done, stats };
}

/** DELIVERIES signed deliveries from SERVICE, evenly over WINDOW_MS, each on a connection of its own. */
async function deliverAll(url: string): Promise<Answer[]> {
  const start = Date.now();
  const pending: Array<Promise<Answer>> = [];
  for (let i = 0; i < DELIVERIES; i++) {
    const wait = start + (i * WINDOW_MS) / DELIVERIES - Date.now();
    if (wait > 0) await sleep(wait);
    pending.push(deliver(url, i));
  }
  return Promise.all(pending);
}

function deliver(url: string, n: number): Promise<Answer> {
  const body = JSON.stringify({ event: 'compliance.updated', clientUserId: `stranger-${n}`, kycStatus: 'pending' });
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}/webhooks`, {
      method: 'POST',
      localAddress: SERVICE,
      agent: false,
      // The service's own limit: an answer later than this is a failed attempt.
      timeout: 5000,
      headers: {
        'content-type': 'application/json',
        'x-request-network-signature': createHmac('sha256', SECRET).update(body).digest('hex'),
        'x-request-network-delivery': `bench-attack-${n}`,
      },
    });
    const end = (status: number) => resolve({ status, ms: performance.now() - started });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => end(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => end(0));
    req.end(body);
  });
}

function figures(answers: Answer[], attack: { opened: number; closed: number }, metrics: string): Figure[] {
  const answered = answers.filter((a) => a.status >= 200 && a.status < 300);
  const ms = answered.map((a) => a.ms).sort((a, b) => a - b);
  const failed = answers.length - answered.length;
  const refused = /payer_onboard_limited_total\{limit="connections-per-address"\} (\d+)/.exec(metrics)?.[1] ?? '0';
  const scenario = 'webhook-attack';
  const note = `${DELIVERIES} signed deliveries over ${WINDOW_MS / 1000} s from one address, each on a connection of its own, while another holds ${SLOW} connections dribbling their headers a byte a second (reopened a second after serve closes one): ${attack.opened} opened, ${refused} closed by serve as they came (64 an address)`;
  return [
    {
      scenario,
      name: 'a signed delivery answered 2xx, the slowest (one not answered fails it)',
      value: (ms.at(-1) ?? Number.NaN) / 1000,
      unit: 's',
      bar: '<= 5',
      pass: failed === 0 && ms.at(-1)! <= 5000,
      note: `p50 ${(percentile(ms, 50) / 1000).toFixed(3)} s, p95 ${(percentile(ms, 95) / 1000).toFixed(3)} s; ${note}`,
    },
    {
      scenario,
      name: 'the same time: deliveries not answered 2xx within 5 s',
      value: failed,
      unit: 'deliveries',
      bar: '= 0',
      pass: failed === 0,
      note: `${answers.length - failed} of ${answers.length} answered 2xx`,
    },
  ];
}
