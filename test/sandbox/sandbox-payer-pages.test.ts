import { PassThrough } from 'node:stream';
import yargs from 'yargs';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxCommand } from '../../src/commands/sandboxCommand.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { call, closeSandboxes, createPayer, payer, start } from '../helpers/sandboxHelpers.js';
import { closeReceivers, receiver } from '../helpers/webhookReceiver.js';

// The pages behind a payer's links: the agreement page the service shows in a frame, and the KYC page the person
// opens in a tab. The agreement page in a real browser's frame is test/e2e/sandbox-pages-browser.test.ts.

const SECRET = 'whsec-test';

afterEach(async () => {
  await closeSandboxes();
  await closeReceivers();
});

/** The payer's links, as the create-compliance answer gives them. */
async function links(sandbox: SandboxHandle, clientUserId = 'payer-1') {
  const created = await createPayer(sandbox, { clientUserId });
  return created.body as { agreementUrl: string; kycUrl: string; userId: string };
}

async function get(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, text: await response.text(), url: response.url };
}

const readPayer = async (sandbox: SandboxHandle, clientUserId = 'payer-1') =>
  (await call(sandbox, 'GET', `/v2/payer/${clientUserId}`)).body as Record<string, unknown>;

/** The CSP's directives by name. */
function policy(headers: Headers): Map<string, string> {
  const text = headers.get('content-security-policy') ?? '';
  return new Map(
    text
      .split(';')
      .map((d) => d.trim())
      .filter((d) => d !== '')
      .map((d) => [d.split(' ')[0]!, d.slice(d.indexOf(' ') + 1)]),
  );
}

describe('the agreement page', () => {
  it('is a small accessible page whose "I agree" posts {agreements: "complete"} to its parent, its script allowed by nonce', async () => {
    const sandbox = await start();
    const { agreementUrl, userId } = await links(sandbox);
    const page = await get(agreementUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<html lang="en">');
    expect(page.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page.text).toContain('<h1>Payer agreement</h1>');
    expect(page.text).toContain('<button type="button" id="agree">I agree</button>');
    expect(page.text).toContain('<p id="done" role="status" tabindex="-1"></p>');
    expect(page.text).toContain(userId);
    expect(page.text).toContain("window.parent.postMessage({ agreements: 'complete' }, '*');");
    expect(page.text).toContain("done.textContent = 'Thank you, you can close this page.';");

    const csp = policy(page.headers);
    const nonce = /^'nonce-([A-Za-z0-9+/=]+)'$/.exec(csp.get('script-src') ?? '')?.[1];
    expect(nonce).toBeDefined();
    expect(csp.get('default-src')).toBe("'none'");
    expect(csp.get('style-src')).toBe(`'nonce-${nonce}'`);
    // Every script and style of the page carries that nonce: nothing else would run.
    expect(page.text.match(/<script[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(page.text.match(/<style[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    expect(page.text).not.toMatch(/ on[a-z]+=/);
    // A new nonce for each page served.
    expect(policy((await get(agreementUrl)).headers).get('script-src')).not.toBe(`'nonce-${nonce}'`);
  });

  it('may be framed by any site by default: no X-Frame-Options, no frame-ancestors', async () => {
    const sandbox = await start();
    expect(sandbox.options.agreementFrame).toBe('allow');
    const page = await get((await links(sandbox)).agreementUrl);
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(policy(page.headers).has('frame-ancestors')).toBe(false);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("agreementFrame deny refuses every frame: X-Frame-Options DENY and frame-ancestors 'none'", async () => {
    const sandbox = await start({ agreementFrame: 'deny' });
    const page = await get((await links(sandbox)).agreementUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(policy(page.headers).get('frame-ancestors')).toBe("'none'");
  });

  it('moves nothing: the agreement is completed only by the PATCH, and the page is not an API call', async () => {
    const sandbox = await start();
    const { agreementUrl } = await links(sandbox);
    expect((await get(agreementUrl)).status).toBe(200);
    expect(await readPayer(sandbox)).toMatchObject({ agreementStatus: 'not_started', isCompliant: false });
    expect((await call(sandbox, 'PATCH', '/v2/payer/payer-1', { body: { agreementCompleted: true } })).status).toBe(
      200,
    );
    expect(await readPayer(sandbox)).toMatchObject({ agreementStatus: 'completed' });
    // The create, two reads and the PATCH: the page is none of them.
    expect(sandbox.stats()).toMatchObject({ requests: 4, agreementsCompleted: 1 });
  });

  it('is answered without the API latency', async () => {
    const sandbox = await start({ latencyMs: 1000 });
    const { agreementUrl } = await links(sandbox);
    const api = call(sandbox, 'GET', '/v2/payer/payer-1').then(() => 'api');
    const page = get(agreementUrl).then(() => 'page');
    expect(await Promise.race([api, page])).toBe('page');
    await api;
  });
});

describe('the KYC page', () => {
  it('shows a "Verify my identity" form posting to itself, refused to frames', async () => {
    const sandbox = await start();
    const { kycUrl } = await links(sandbox);
    const page = await get(kycUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<h1>Verify your identity</h1>');
    expect(page.text).toContain('<form method="post"><button type="submit">Verify my identity</button></form>');
    expect(page.text).not.toContain('<script');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const csp = policy(page.headers);
    expect(csp.get('frame-ancestors')).toBe("'none'");
    expect(csp.get('form-action')).toBe("'self'");
    expect(csp.get('default-src')).toBe("'none'");
  });

  it('approves the payer as the admin route does: the same statuses and the same webhook, then says Verified', async () => {
    const hook = await receiver();
    const sandbox = await start({ webhookUrl: hook.url, webhookSecret: SECRET });
    await links(sandbox, 'by-admin');
    const { kycUrl } = await links(sandbox, 'by-page');

    const byAdmin = await call(sandbox, 'POST', '/__sandbox/payers/by-admin/kyc', {
      headers: { 'content-type': 'application/json' },
      body: { kycStatus: 'approved' },
    });
    expect(byAdmin.status).toBe(200);
    const posted = await get(kycUrl, { method: 'POST', redirect: 'manual' });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(new URL(kycUrl).pathname);

    const deliveries = await hook.received(2);
    const event = (clientUserId: string) => {
      const delivery = deliveries.find((d) => d.body.clientUserId === clientUserId);
      return { ...delivery?.body, clientUserId: 'ID', timestamp: 'T' };
    };
    expect(event('by-page')).toEqual(event('by-admin'));
    expect(event('by-page')).toMatchObject({ event: 'compliance.updated', kycStatus: 'approved' });
    const statuses = async (clientUserId: string) => ({ ...(await readPayer(sandbox, clientUserId)), userId: 'U' });
    expect(await statuses('by-page')).toEqual(await statuses('by-admin'));
    expect(await statuses('by-page')).toEqual({
      kycStatus: 'approved',
      agreementStatus: 'not_started',
      isCompliant: false,
      userId: 'U',
    });

    const verified = await get(kycUrl);
    expect(verified.text).toContain('<h1>Verified</h1>');
    expect(verified.text).not.toContain('<form');
    // Compliant once the agreement's PATCH comes too.
    await call(sandbox, 'PATCH', '/v2/payer/by-page', { body: { agreementCompleted: true } });
    expect(await readPayer(sandbox, 'by-page')).toMatchObject({ isCompliant: true });
  });

  it('a browser following the form lands on Verified, in the word the answers use for it', async () => {
    const sandbox = await start({ kycWord: 'completed' });
    const { kycUrl } = await links(sandbox);
    const landed = await get(kycUrl, { method: 'POST', body: new URLSearchParams() });
    expect(landed).toMatchObject({ status: 200, url: kycUrl });
    expect(landed.text).toContain('<h1>Verified</h1>');
    expect(await readPayer(sandbox)).toMatchObject({ kycStatus: 'completed' });
    expect(sandbox.stats()).toMatchObject({ requests: 2 });
  });
});

describe('an unknown link', () => {
  it('is a plain 404 page, for either page and for the form, and changes nothing', async () => {
    const sandbox = await start();
    const { agreementUrl, kycUrl } = await links(sandbox);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const urls = [
      agreementUrl.replace(/[^/]+$/, unknown),
      kycUrl.replace(/[^/]+$/, unknown),
      // The links carry the service's userId, not the platform's clientUserId.
      `${sandbox.url}/__sandbox/kyc/payer-1`,
    ];
    for (const url of urls) {
      const page = await get(url);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<h1>Page not found</h1>');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    expect((await get(urls[1]!, { method: 'POST' })).status).toBe(404);
    expect(await readPayer(sandbox)).toMatchObject({ kycStatus: 'not_started' });
    expect(sandbox.stats()).toMatchObject({ requests: 2 });
  });

  it('a method the page does not take is the admin routes 404', async () => {
    const sandbox = await start();
    const { agreementUrl } = await links(sandbox);
    const refused = await get(agreementUrl, { method: 'POST' });
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.text)).toMatchObject({ statusCode: 404 });
  });
});

describe('--agreement-frame', () => {
  it('is a flag of the command, checked like every option', async () => {
    const argv = sandboxCommand.builder(yargs(['--port', '0', '--agreement-frame', 'deny'])).parseSync();
    const stdout = new PassThrough();
    const controller = new AbortController();
    const line = new Promise<string>((resolve) => stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    const io = { stdout, stderr: new PassThrough().resume(), env: {}, cwd: process.cwd(), signal: controller.signal };
    const exited = sandboxCommand.handler(argv as Record<string, unknown>, io);
    const base = (await line).trim().slice('listening on '.length);
    const headers = { 'x-api-key': 'sandbox-key', 'content-type': 'application/json' };
    const body = JSON.stringify(payer());
    const created = (await (await fetch(`${base}/v2/payer`, { method: 'POST', headers, body })).json()) as {
      agreementUrl: string;
    };
    expect((await get(created.agreementUrl)).headers.get('x-frame-options')).toBe('DENY');
    controller.abort();
    expect(await exited).toBe(0);
    await expect(start({ agreementFrame: 'never' as never })).rejects.toThrow(
      'agreementFrame: must be one of: allow, deny',
    );
  });
});
