import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { browserSuite, CHROMIUM, useBrowser } from '../helpers/browser.js';
import { call, closeSandboxes, createPayer, start } from '../helpers/sandboxHelpers.js';

// The sandbox's payer pages in a real headless browser (Debian's chromium, driven by playwright-core), on a phone's
// width: the agreement page framed by another origin's page, as a platform's payer page frames the service's, and the
// KYC page in a tab of its own. Skipped, saying why, where chromium is missing, unless .ci/run requires it.
const suite = browserSuite("the sandbox's payer pages");

const browser = useBrowser(suite.have);
const parents: Server[] = [];
afterEach(async () => {
  await closeSandboxes();
  const servers = parents.splice(0);
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A platform's page on another loopback origin: it frames `src` and keeps every message the frame posts. */
async function parentPage(src: string): Promise<string> {
  const page = `<!doctype html><html lang="en"><title>Payer page</title>
<script>
window.received = [];
addEventListener('message', (event) => window.received.push({ origin: event.origin, data: event.data }));
</script>
<iframe title="Agreement" src="${src}" style="width: 100%; height: 32rem; border: 0"></iframe></html>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  parents.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** A page 375 px wide, as a phone's, with what its console says as errors. */
async function phone(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser().newPage({ viewport: { width: 375, height: 740 } });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

async function links(sandbox: SandboxHandle): Promise<{ agreementUrl: string; kycUrl: string }> {
  return (await createPayer(sandbox)).body as { agreementUrl: string; kycUrl: string };
}

const readPayer = async (sandbox: SandboxHandle) =>
  (await call(sandbox, 'GET', '/v2/payer/payer-1')).body as Record<string, unknown>;

describe.skipIf(suite.skip)(suite.title, () => {
  it('"I agree" in a frame posts {agreements: "complete"} to the parent, from the sandbox\'s origin; nothing moves', async () => {
    expect(suite.have, `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    const sandbox = await start();
    const { agreementUrl } = await links(sandbox);
    const { page, errors } = await phone();
    await page.goto(await parentPage(agreementUrl));
    const frame = page.frameLocator('iframe[title="Agreement"]');
    await frame.getByRole('heading', { name: 'Payer agreement' }).waitFor();
    // Nothing wider than the frame on a phone.
    const fits = await frame
      .locator('html')
      .evaluate((root) => root.scrollWidth <= root.clientWidth && root.clientWidth > 300);
    expect(fits).toBe(true);

    await frame.getByRole('button', { name: 'I agree' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as { received: unknown[] }).received))
      .toEqual([{ origin: sandbox.url, data: { agreements: 'complete' } }]);
    await expect.poll(() => frame.getByRole('status').textContent()).toBe('Thank you, you can close this page.');
    expect(await frame.getByRole('button', { name: 'I agree' }).isHidden()).toBe(true);
    // The message is for the platform to act on: the service records the agreement only through the PATCH.
    expect(await readPayer(sandbox)).toMatchObject({ agreementStatus: 'not_started', isCompliant: false });
    expect(sandbox.stats()).toMatchObject({ requests: 2 });
    // No script or style refused by the page's policy.
    expect(errors).toEqual([]);
  });

  it('with agreementFrame deny the browser refuses to show it in the frame', async () => {
    const sandbox = await start({ agreementFrame: 'deny' });
    const { agreementUrl } = await links(sandbox);
    const { page, errors } = await phone();
    await page.goto(await parentPage(agreementUrl));
    await expect.poll(() => errors.join('\n')).toMatch(/frame-ancestors 'none'|X-Frame-Options/);
    expect(await page.frameLocator('iframe').getByRole('button', { name: 'I agree' }).count()).toBe(0);
  });

  it('the KYC page in a tab of its own, by keyboard: "Verify my identity" approves the payer and says Verified', async () => {
    const sandbox = await start();
    const { kycUrl } = await links(sandbox);
    const { page, errors } = await phone();
    await page.goto(kycUrl);
    const fits = await page.locator('html').evaluate((root) => root.scrollWidth <= root.clientWidth);
    expect(fits).toBe(true);
    await page.keyboard.press('Tab');
    await expect.poll(() => page.locator(':focus').textContent()).toBe('Verify my identity');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Verified');
    expect(page.url()).toBe(kycUrl);
    expect(await readPayer(sandbox)).toMatchObject({ kycStatus: 'approved' });
    // The create and the read: the page and its form are no API calls.
    expect(sandbox.stats()).toMatchObject({ requests: 2, byStatus: { '200': 2 } });
    expect(errors).toEqual([]);
  });
});
