import { afterEach, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM, shot, useBrowser } from '../helpers/browser.js';
import { freePort, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, startOidcProvider } from '../helpers/oidcProvider.js';
import { serveHarness } from '../helpers/serveHarness.js';

// Sign-in with the company's account in chromium, through the provider's own login and consent pages. serve is
// `localhost` and the provider `127.0.0.1`: two sites, as a company's provider is, so the browser comes back to serve
// from another site (a SameSite=Strict cookie would stay behind on that way).
const suite = browserSuite('sign-in with the identity provider');

const browser = useBrowser(suite.have);
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe.skipIf(suite.skip)(suite.title, () => {
  it('a person the role claim names signs in with their company account and lands on the page with that role', async () => {
    expect(suite.have, `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    const port = await freePort();
    const url = `http://localhost:${port}`;
    const provider = await startOidcProvider(`${url}/login/oidc/callback`, {
      grace: { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper', groups: ['approver'] },
    });
    closing.push(() => provider.close());
    const h = await serveHarness({
      serve: {
        port,
        publicUrl: url,
        oidcIssuer: provider.issuer,
        oidcClientId: OIDC_CLIENT_ID,
        oidcClientSecret: OIDC_CLIENT_SECRET,
        oidcRoleClaim: 'groups',
      },
    });
    closing.push(() => h.close());
    const page = await browser().newPage();
    await page.goto(`${url}/`);
    await expect.poll(() => page.url()).toBe(`${url}/login`);
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await page.getByPlaceholder('Enter any login').fill('grace');
    await page.getByPlaceholder('and password').fill('any password');
    await shot(page, 'oidc-1-provider');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.url()).toBe(`${url}/`);
    await expect.poll(() => page.locator('.who').textContent()).toBe('Grace Hopper (approver)');
    await shot(page, 'oidc-2-signed-in');
  });
});
