import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { Provider } from 'oidc-provider';

export const OIDC_CLIENT_ID = 'payer-onboard';
export const OIDC_CLIENT_SECRET = 'oidc-test-client-secret-7d1e';

/** A person at the company's identity provider: the claims it tells of them (besides `sub`, their login). */
export type OidcAccount = { email?: string; email_verified?: boolean; name?: string; groups?: string | string[] };

/**
 * A company's identity provider on loopback (oidc-provider, with its own login and consent pages, which take any
 * password): one client, serve, sending the browser back to `redirectUri`; the `groups` claim is a scope of its own,
 * as at many providers.
 */
export async function startOidcProvider(redirectUri: string, accounts: Record<string, OidcAccount>) {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    findAccount: (_ctx, sub) => {
      const account = accounts[sub];
      return account && { accountId: sub, claims: async () => ({ sub, ...account }) };
    },
    cookies: { keys: ['oidc-test-cookie-key'] },
    // A test's minutes, said rather than left to the defaults (which the provider notes on the console each time).
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' }] },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A port free on loopback for serve to listen on: the provider must know serve's address (its redirect URI) before
 * serve starts, and serve looks for the provider as it starts.
 */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Cookies as a browser keeps them, per host:port and path (enough for serve and the provider, both on loopback). */
class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const sent = [...this.cookies.entries()]
      .filter(([key, c]) => key.startsWith(`${target.host} `) && target.pathname.startsWith(c.path))
      .map(([key, c]) => `${key.slice(key.indexOf(' ') + 1)}=${c.value}`);
    const headers = new Headers(init.headers);
    if (sent.length > 0) headers.set('cookie', sent.join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const gone = attributes.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a));
      if (gone) this.cookies.delete(`${target.host} ${name}`);
      else this.cookies.set(`${target.host} ${name}`, { value: pair.slice(name.length + 1), path });
    }
    return res;
  }
}

/**
 * A person signs in with their company account as a browser would: serve's button, the provider's login form (as
 * `login`) and its consent page, up to the provider's redirect back to serve. The callback's URL and the browser's
 * cookies: `back()` delivers it (or another URL) to serve and returns serve's answer, not followed.
 */
export async function throughProvider(serveUrl: string, login: string) {
  const jar = new CookieJar();
  let res = await jar.fetch(`${serveUrl}/login/oidc`);
  let url = `${serveUrl}/login/oidc`;
  for (let hop = 0; hop < 20; hop++) {
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      if (url.startsWith(`${serveUrl}/login/oidc/callback`)) {
        const callback = url;
        return { callback, back: (at = callback) => jar.fetch(at) };
      }
      res = await jar.fetch(url);
      continue;
    }
    const page = await res.text();
    const form = /<form[^>]*action="([^"]+)"[\s\S]*?name="prompt" value="(\w+)"/.exec(page);
    if (res.status !== 200 || form === null) throw new Error(`the provider answered ${res.status}: ${page}`);
    const fields: Record<string, string> =
      form[2] === 'login' ? { prompt: 'login', login, password: 'any' } : { prompt: form[2]! };
    res = await jar.fetch(new URL(form[1]!.replace(/&amp;/g, '&'), url).href, {
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('the provider never sent the browser back to serve');
}
