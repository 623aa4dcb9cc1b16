import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { resolveSandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { closeSandboxes, start } from '../helpers/sandboxHelpers.js';

afterEach(closeSandboxes);

describe('sandbox options', () => {
  it('defaults', () => {
    expect(resolveSandboxOptions()).toEqual({
      host: '127.0.0.1',
      port: 0,
      apiKey: 'sandbox-key',
      latencyMs: 0,
      rateLimit: 0,
      blockSeconds: 300,
      retryAfter: true,
      duplicates: 'return-existing',
      errorShape: 'messages',
      idempotency: 'off',
      kycGate: '500',
      accountApproveMs: 1000,
      maskNumbers: false,
      bareReads: false,
      kycWord: 'approved',
      agreementFrame: 'allow',
      agreementGate: false,
      webhookDrop: 0,
      webhookTwice: 0,
      webhookTimeScale: 1,
      webhookAccountShape: 'reference-app',
      fault429: 0,
      fault500: 0,
      fault503: 0,
      faultReset: 0,
      faultCommit500: 0,
      faultSlow: 0,
      slowMs: 120_000,
      seed: 1,
      keepRequests: true,
      maxBodyBytes: 1024 * 1024,
    });
  });

  it('reports every bad option at once as `option: message`, with code E_USAGE', () => {
    let caught: unknown;
    try {
      resolveSandboxOptions({
        port: 70000,
        fault500: 1.5,
        duplicates: 'ignore' as never,
        latencyMs: -1,
        seed: 1.5,
        idempotency: 'yes' as never,
        kycAfter: -1,
        kycGate: 500 as never,
        accountApproveMs: 0.5,
        webhookTimeScale: 0,
        webhookAccountShape: 'fixtures' as never,
        now: 5 as never,
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught).toMatchObject({ code: 'E_USAGE', exitCode: 2 });
    expect((caught as Error).message.split('\n')).toEqual([
      'port: must be between 0 and 65535',
      'latencyMs: must be 0 or more',
      'duplicates: must be one of: conflict, return-existing',
      'idempotency: must be one of: on, off',
      'kycAfter: must be 0 or more',
      'kycGate: must be one of: 500, 400, off',
      'accountApproveMs: must be a whole number',
      'webhookTimeScale: must be more than 0',
      'webhookAccountShape: must be one of: reference-app, community',
      'fault500: must be between 0 and 1',
      'seed: must be a whole number',
      'now: must be a function',
    ]);
  });

  it('fault rates may not add up to more than 1', () => {
    expect(() => resolveSandboxOptions({ fault500: 0.6, fault503: 0.6 })).toThrow(
      'faults: fault rates add up to 1.2, more than 1',
    );
  });

  it('startSandbox checks its options too', async () => {
    await expect(startSandbox({ port: -1 })).rejects.toMatchObject({ code: 'E_USAGE' });
  });

  it('listens on loopback by default and reports the URL and port', async () => {
    const sandbox = await start();
    expect(sandbox.host).toBe('127.0.0.1');
    expect(sandbox.port).toBeGreaterThan(0);
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
  });

  it('close() can be called twice', async () => {
    const sandbox = await start();
    await sandbox.close();
    await sandbox.close();
    await expect(fetch(`${sandbox.url}/__sandbox/stats`)).rejects.toThrow();
  });
});
