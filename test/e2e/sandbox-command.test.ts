import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/commands/CliCommand.js';
import { sandboxCommand } from '../../src/commands/sandboxCommand.js';
import { FAULT_KINDS, type SandboxOptions, type SandboxStats, startSandbox } from '../../src/sandbox/index.js';
import { waitFor } from '../helpers/waitFor.js';
import { payer, paymentDetail } from '../helpers/sandboxHelpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function parse(args: string[]): Record<string, unknown> {
  return sandboxCommand.builder(yargs(args)).parseSync() as Record<string, unknown>;
}

function testIo(): { io: CliIo; stdout: () => string; controller: AbortController; firstLine: Promise<string> } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  const firstLine = new Promise<string>((resolve) => {
    stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
    });
  });
  stderr.resume();
  const controller = new AbortController();
  return {
    io: { stdout, stderr, env: {}, cwd: ROOT, signal: controller.signal },
    stdout: () => out,
    controller,
    firstLine,
  };
}

/** How to stop each sandbox a test started with startCommand; all are stopped after the test. */
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** `payer-onboard sandbox ARGS` in process, on any free port unless ARGS name one; stopped after the test. */
async function startCommand(args: string[]): Promise<{ url: string; line: string }> {
  const { io, controller, firstLine } = testIo();
  const exited = sandboxCommand.handler(parse(args.includes('--port') ? args : ['--port', '0', ...args]), io);
  stops.push(async () => {
    controller.abort();
    expect(await exited).toBe(0);
  });
  const line = await Promise.race([
    firstLine,
    exited.then((code) => Promise.reject(new Error(`exited ${code} before listening`))),
  ]);
  return { url: line.slice('listening on '.length), line };
}

const KEY = ['--api-key', 'k'];

/** One request to a sandbox, with the key `k` unless told otherwise; the body parsed when it is JSON. */
async function send(
  sandbox: { url: string },
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the answer it asked for
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { 'x-api-key': options.key ?? 'k', 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
  return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text };
}

async function stats(sandbox: { url: string }): Promise<SandboxStats> {
  return (await send(sandbox, 'GET', '/__sandbox/stats')).body;
}

/** The userId startSandbox gives the first payer created under these options. */
async function firstUserId(options: SandboxOptions): Promise<string> {
  const sandbox = await startSandbox({ port: 0, apiKey: 'k', ...options });
  try {
    return (await send(sandbox, 'POST', '/v1/payer', { body: payer() })).body.userId;
  } finally {
    await sandbox.close();
  }
}

describe('payer-onboard sandbox (in process)', () => {
  it('prints exactly "listening on http://HOST:PORT", serves, and returns 0 when the signal aborts', async () => {
    const { io, stdout, controller, firstLine } = testIo();
    const running = sandboxCommand.handler(
      parse(['--port', '0', '--api-key', 'k', '--duplicates', 'return-existing']),
      io,
    );
    const line = await firstLine;
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.slice('listening on '.length);
    const reply = await fetch(`${url}/v1/payer`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify(payer()),
    });
    expect(reply.status).toBe(200);
    controller.abort();
    expect(await running).toBe(0);
    expect(stdout()).toBe(`${line}\n`);
    await expect(fetch(`${url}/__sandbox/stats`)).rejects.toThrow();
  });

  it('--host, --api-key and --latency: where it listens, the one key it accepts, how long it takes to answer', async () => {
    const sandbox = await startCommand(['--host', '127.0.0.1', '--api-key', 'abc', '--latency', '150']);
    expect(sandbox.line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect((await send(sandbox, 'POST', '/v1/payer', { key: 'sandbox-key', body: payer() })).status).toBe(401);
    const sentAt = Date.now();
    expect((await send(sandbox, 'POST', '/v1/payer', { key: 'abc', body: payer() })).status).toBe(200);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(150);
  });

  it('--rate-limit and --no-retry-after: past N reads a second, 429 with or without Retry-After', async () => {
    const limited = await startCommand([...KEY, '--rate-limit', '2', '--no-retry-after']);
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await send(limited, 'GET', '/v2/payer/nobody'));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 429]);
    expect(answers[2]!.headers.get('retry-after')).toBeNull();
    expect(await stats(limited)).toMatchObject({ rateLimited: 1 });

    // Retry-After is on by default.
    const withRetryAfter = await startCommand([...KEY, '--rate-limit', '1']);
    await send(withRetryAfter, 'GET', '/v2/payer/nobody');
    const throttled = await send(withRetryAfter, 'GET', '/v2/payer/nobody');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
  });

  it('--duplicates, --idempotency and --kyc-gate: what a repeat and a bank account before KYC get', async () => {
    const sandbox = await startCommand([
      ...KEY,
      '--duplicates',
      'conflict',
      '--idempotency',
      'on',
      '--kyc-gate',
      '400',
    ]);
    const create = (key: string) =>
      send(sandbox, 'POST', '/v1/payer', { body: payer(), headers: { 'idempotency-key': key } });
    expect((await create('first')).status).toBe(200);
    const replayed = await create('first');
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await create('second')).status).toBe(409);
    const account = await send(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail() });
    expect(account.status).toBe(400);
    expect(account.body.message).toBe('Payer KYC is not approved');
    expect(await stats(sandbox)).toMatchObject({ idempotentReplays: 1, duplicatePayers: 1, kycRefusals: 1 });
  });

  it('--kyc-gate off, --kyc-after 0, --account-approve-ms 0 and --mask-numbers', async () => {
    const sandbox = await startCommand([
      ...KEY,
      '--kyc-gate',
      'off',
      '--kyc-after',
      '0',
      '--account-approve-ms',
      '0',
      '--mask-numbers',
    ]);
    const created = await send(sandbox, 'POST', '/v1/payer', { body: payer() });
    expect(created.body.status.kycStatus).toBe('approved'); // approved at creation
    expect((await send(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { body: paymentDetail() })).status).toBe(
      201,
    );
    const listed = await send(sandbox, 'GET', '/v2/payer/payer-1/payment-details');
    expect(listed.body.paymentDetails).toMatchObject([{ status: 'approved', accountNumber: '6789' }]);
  });

  it('--kyc-after S: KYC approved S seconds after creation, not before', async () => {
    const sandbox = await startCommand([...KEY, '--kyc-after', '0.2', '--kyc-gate', 'off']);
    const sentAt = Date.now();
    const created = await send(sandbox, 'POST', '/v1/payer', { body: payer() });
    expect(created.body.status.kycStatus).toBe('not_started');
    await waitFor(
      async () => (await send(sandbox, 'GET', '/v2/payer/payer-1')).body.kycStatus === 'approved',
      'KYC approved',
    );
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(200);
  });

  it('--fault-*, --slow-ms and --seed: the same faults and ids as startSandbox given the same options', async () => {
    const rates = { fault429: 0.1, fault500: 0.1, fault503: 0.1, faultReset: 0.1, faultCommit500: 0.1, faultSlow: 0.1 };
    const args = [
      ...KEY,
      '--fault-429',
      '0.1',
      '--fault-500',
      '0.1',
      '--fault-503',
      '0.1',
      '--fault-reset',
      '0.1',
      '--fault-commit-500',
      '0.1',
      '--fault-slow',
      '0.1',
      '--slow-ms',
      '100',
      '--seed',
      '9',
    ];
    const fromFlags = await startCommand(args);
    const reference = await startSandbox({ port: 0, apiKey: 'k', ...rates, slowMs: 100, seed: 9 });
    try {
      const answers = async (target: { url: string }) => {
        const seen: Array<number | 'reset'> = [];
        for (let i = 0; i < 40; i += 1) {
          seen.push(
            await send(target, 'GET', `/v2/payer/p-${i}`).then(
              (a) => a.status,
              () => 'reset' as const,
            ),
          );
        }
        return seen;
      };
      const seen = await answers(fromFlags);
      expect(seen).toEqual(await answers(reference));
      const faults = (await stats(fromFlags)).faults;
      expect(faults).toEqual(reference.stats().faults);
      // Every kind was drawn: each flag's rate took its band.
      for (const kind of FAULT_KINDS) expect(faults[kind]).toBeGreaterThan(0);
    } finally {
      await reference.close();
    }
    // Ids come from the seed too: --seed 9 names a payer as startSandbox({ seed: 9 }) does, not as the default seed 1.
    const ids = await startCommand([...KEY, '--seed', '9']);
    const userId = (await send(ids, 'POST', '/v1/payer', { body: payer() })).body.userId;
    expect(userId).toBe(await firstUserId({ seed: 9 }));
    expect(userId).not.toBe(await firstUserId({ seed: 1 }));
  });

  it('the defaults: key sandbox-key, a repeat gets the payer, no idempotency, KYC gate 500 and moved by hand only, accounts approved after 1 s, numbers as given, seed 1', async () => {
    const sandbox = await startCommand([]);
    expect((await send(sandbox, 'POST', '/v1/payer', { key: 'k', body: payer() })).status).toBe(401);
    const key = { key: 'sandbox-key' };
    const created = await send(sandbox, 'POST', '/v1/payer', {
      ...key,
      body: payer(),
      headers: { 'idempotency-key': 'i' },
    });
    expect(created.status).toBe(200);
    expect(created.body.status.kycStatus).toBe('not_started');
    expect(created.body.userId).toBe(await firstUserId({ seed: 1 }));
    // The same key with another body: ignored (no 422), and the repeat answered with the stored payer (no 409).
    const repeat = await send(sandbox, 'POST', '/v1/payer', {
      ...key,
      body: payer({ email: 'other@example.com' }),
      headers: { 'idempotency-key': 'i' },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBeNull();
    const refused = await send(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { ...key, body: paymentDetail() });
    expect(refused.status).toBe(500);
    expect(await stats(sandbox)).toMatchObject({
      duplicatePayers: 1,
      idempotentReplays: 0,
      idempotencyMismatches: 0,
      kycRefusals: 1,
    });

    expect(
      (await send(sandbox, 'POST', '/__sandbox/payers/payer-1/kyc', { body: { kycStatus: 'approved' } })).status,
    ).toBe(200);
    const sentAt = Date.now();
    expect(
      (await send(sandbox, 'POST', '/v2/payer/payer-1/payment-details', { ...key, body: paymentDetail() })).status,
    ).toBe(201);
    let listed: Array<Record<string, unknown>> = [];
    await waitFor(async () => {
      listed = (await send(sandbox, 'GET', '/v2/payer/payer-1/payment-details', key)).body.paymentDetails;
      return listed[0]?.status === 'approved';
    }, 'the account approved');
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1000);
    expect(listed[0]).toMatchObject({ accountNumber: paymentDetail().accountNumber });
  });

  it('bad values are ConfigError E_USAGE naming the flags', async () => {
    const { io } = testIo();
    const error = await sandboxCommand
      .handler(
        parse([
          '--port',
          '70000',
          '--fault-500',
          '2',
          '--duplicates',
          'maybe',
          '--rate-limit',
          'x',
          '--idempotency',
          'yes',
          '--kyc-after',
          '-1',
          '--kyc-gate',
          '404',
        ]),
        io,
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConfigError', code: 'E_USAGE', exitCode: 2 });
    expect((error as Error).message.split('\n')).toEqual([
      '--port: must be between 0 and 65535',
      '--rate-limit: must be a number',
      '--duplicates: must be one of: conflict, return-existing',
      '--idempotency: must be one of: on, off',
      '--kyc-after: must be 0 or more',
      '--kyc-gate: must be one of: 500, 400, off',
      '--fault-500: must be between 0 and 1',
    ]);
    await expect(sandboxCommand.handler(parse(['--host', '']), io)).rejects.toThrow(/^--host: must not be empty$/);
    await expect(sandboxCommand.handler(parse(['--kyc-after', 'soon']), io)).rejects.toThrow(
      /^--kyc-after: must be a number$/,
    );
    await expect(sandboxCommand.handler(parse(['--fault-429', '0.7', '--fault-503', '0.7']), io)).rejects.toThrow(
      /^--fault-\*: fault rates add up to/,
    );
  });

  it('without --port it listens on 4010 (taken here, so the usage error names it)', async () => {
    // Something else on this machine may hold 4010 already: the sandbox then finds it taken all the same.
    const blocker = createServer();
    await new Promise<void>((resolve) => {
      blocker.once('error', () => resolve());
      blocker.listen(4010, '127.0.0.1', resolve);
    });
    try {
      await expect(sandboxCommand.handler(parse([]), testIo().io)).rejects.toMatchObject({
        code: 'E_USAGE',
        message: '--port: 4010 is already in use on 127.0.0.1',
      });
    } finally {
      if (blocker.listening) blocker.close();
    }
  });

  it('a port in use is a usage error, not a crash', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { io } = testIo();
      await expect(sandboxCommand.handler(parse(['--port', String(port)]), io)).rejects.toMatchObject({
        code: 'E_USAGE',
        message: `--port: ${port} is already in use on 127.0.0.1`,
      });
    } finally {
      blocker.close();
    }
  });
});

describe('payer-onboard sandbox (the real bin)', () => {
  it('serves until SIGTERM, then exits 0', async () => {
    expect(existsSync(`${ROOT}/dist/bin.js`), 'run `npm run build` first').toBe(true);
    const child = spawn(process.execPath, ['bin/payer-onboard.js', 'sandbox', '--port', '0', '--api-key', 'k'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
        });
        void exited.then((code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
      });
      expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      const url = line.slice('listening on '.length);
      const created = await fetch(`${url}/v1/payer`, {
        method: 'POST',
        headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
        body: JSON.stringify(payer()),
      });
      expect(created.status).toBe(200);
      const denied = await fetch(`${url}/v1/payer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(denied.status).toBe(401);
      const stats = (await (await fetch(`${url}/__sandbox/stats`)).json()) as { payersCreated: number };
      expect(stats.payersCreated).toBe(1);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
