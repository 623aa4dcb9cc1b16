import { createServer } from 'node:net';
import { openStore } from '../store/openStore.js';
import { issueLink } from '../web/payerLinks.js';

// The payers' part of the demo: their personal links, and what each does on their page, played without a browser
// the way the page's own script does it. The service's agreement page (the sandbox's) is fetched as the frame would;
// its "I agree" posts a message to the page, whose script then posts the signature to serve.

/** A free loopback port: serve's public address must be known before it starts, to make the links. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A personal link for each payer, made in serve's store as `payer-onboard link new` makes them. */
export async function linksFor(
  stateDir: string,
  publicUrl: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const store = await openStore({ stateDir });
  try {
    const [service] = await store.services();
    const directory = store.directory(service!);
    const links = new Map<string, string>();
    for (const id of ids) links.set(id, (await issueLink(directory, id, { now: new Date(), days: 30, publicUrl })).url);
    return links;
  } finally {
    await store.close();
  }
}

/** A payer's page as a browser opens it from the mail's link: the link exchanged for the page's cookie. */
export async function openPage(link: string): Promise<{ base: string; cookie: string; html: string }> {
  const base = new URL(link).origin;
  const exchanged = await fetch(link, { redirect: 'manual' });
  const cookie = exchanged.headers.get('set-cookie')?.split(';')[0];
  if (exchanged.status !== 303 || cookie === undefined) throw new Error(`the link answered ${exchanged.status}`);
  const page = await fetch(`${base}/p`, { headers: { cookie } });
  if (!page.ok) throw new Error(`the page answered ${page.status}`);
  return { base, cookie, html: await page.text() };
}

/**
 * The payer signs: the service's agreement page is loaded in the frame, "I agree" is clicked there, and the page's
 * script posts the signature to serve, from the page's own origin and with its token.
 */
export async function signOnPage(page: { base: string; cookie: string; html: string }): Promise<void> {
  const frame = /<iframe[^>]*\bsrc="([^"]+)"/.exec(page.html)?.[1];
  const csrf = /data-csrf="([^"]+)"/.exec(page.html)?.[1];
  if (frame === undefined || csrf === undefined) throw new Error('the page shows no agreement to sign');
  const agreement = await fetch(htmlText(frame));
  if (!agreement.ok) throw new Error(`the service's agreement page answered ${agreement.status}`);
  const posted = await fetch(`${page.base}/p/agreement`, {
    method: 'POST',
    headers: { cookie: page.cookie, origin: page.base, 'content-type': 'application/json', 'x-csrf-token': csrf },
    body: '{}',
  });
  if (!posted.ok) throw new Error(`serve answered the signature ${posted.status}`);
}

/** What the page says, as a person reads it: its text without the markup, a line a heading or paragraph. */
export function pageText(html: string): string[] {
  const main = /<main[^>]*>([\s\S]*?)<\/main>/.exec(html)?.[1] ?? html;
  return htmlText(
    main
      .replace(/<(script|style|iframe)[\s\S]*?<\/\1>/g, '')
      // What the page shows only when it must (the frame refused): a browser does not show it either.
      .replace(/<(\w+)[^>]*\shidden[\s>][\s\S]*?<\/\1>/g, '')
      .replace(/<\/(h1|h2|h3|p|li|div|section)>/g, '\n')
      .replace(/<[^>]+>/g, ''),
  )
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '');
}

function htmlText(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
