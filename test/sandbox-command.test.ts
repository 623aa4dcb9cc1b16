import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../src/commands/CliCommand.js';
import { sandboxCommand, sandboxOptionsFromArgv } from '../src/commands/sandbox.js';
import { payer } from './sandbox-helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

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

  it('maps every flag to its option', () => {
    expect(
      sandboxOptionsFromArgv(
        parse([
          '--host',
          '127.0.0.1',
          '--port',
          '4011',
          '--api-key',
          'abc',
          '--latency',
          '5',
          '--rate-limit',
          '10',
          '--no-retry-after',
          '--duplicates',
          'return-existing',
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
          '999',
          '--seed',
          '9',
          '--idempotency',
          'on',
          '--kyc-after',
          '2.5',
          '--kyc-gate',
          '400',
          '--account-approve-ms',
          '50',
          '--mask-numbers',
        ]),
      ),
    ).toMatchObject({
      host: '127.0.0.1',
      port: 4011,
      apiKey: 'abc',
      latencyMs: 5,
      rateLimit: 10,
      retryAfter: false,
      duplicates: 'return-existing',
      fault429: 0.1,
      fault500: 0.1,
      fault503: 0.1,
      faultReset: 0.1,
      faultCommit500: 0.1,
      faultSlow: 0.1,
      slowMs: 999,
      seed: 9,
      idempotency: 'on',
      kycAfter: 2.5,
      kycGate: '400',
      accountApproveMs: 50,
      maskNumbers: true,
    });
    expect(sandboxOptionsFromArgv(parse(['--kyc-gate', 'off', '--kyc-after', '0']))).toMatchObject({
      kycGate: 'off',
      kycAfter: 0,
    });
    const defaults = sandboxOptionsFromArgv(parse([]));
    expect(defaults).toMatchObject({
      port: 4010,
      apiKey: 'sandbox-key',
      retryAfter: true,
      duplicates: 'return-existing',
      idempotency: 'off',
      kycGate: '500',
      accountApproveMs: 1000,
      maskNumbers: false,
      seed: 1,
    });
    expect(defaults.kycAfter).toBeUndefined();
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
    expect(() => sandboxOptionsFromArgv(parse(['--kyc-after', 'soon']))).toThrow(/^--kyc-after: must be a number$/);
    expect(() => sandboxOptionsFromArgv(parse(['--fault-429', '0.7', '--fault-503', '0.7']))).toThrow(
      /^--fault-\*: fault rates add up to/,
    );
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
