import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { html, type SafeHtml, toText } from '../core/html.js';
import type { AgreementFrame } from '../options/sandboxOptions.js';
import { readBody } from './http.js';
import type { StoredPayer } from './payers.js';

// The pages behind the links a payer is given (`agreementUrl`, `kycUrl`), playing the service's part so a payer's
// whole loop runs on loopback. The agreement page is what the service shows in a frame: "I agree" posts
// `{agreements: 'complete'}` to the parent and moves nothing, since at the service only the platform's PATCH records
// the agreement. The KYC page stands for the identity check the person does in a tab of their own: submitting it
// approves the payer's KYC through the same call as the admin route, so the statuses and webhooks move alike.

type PageKind = 'agreement' | 'kyc';

/** What the pages act on: the running sandbox's handle. */
export interface PageTarget {
  /** The payer the service knows by `userId` (the id the links carry), as stored; undefined for an unknown one. */
  payerOfUser(userId: string): StoredPayer | undefined;
  /** Moves a payer's KYC as the person's verification would (kycAfter no longer moves it); throws for an unknown payer. */
  setKyc(clientUserId: string, kycStatus: string): void;
  /**
   * kycWord: the word an approved KYC is reported with (the admin route takes it as well as `approved`);
   * agreementFrame: whether the agreement page may be framed.
   */
  readonly options: { readonly kycWord: string; readonly agreementFrame: AgreementFrame };
}

/** GET (or HEAD) either page, or POST the KYC page's form. */
export async function payerPage(
  req: IncomingMessage,
  res: ServerResponse,
  kind: PageKind,
  userId: string,
  target: PageTarget,
): Promise<void> {
  // The KYC page is refused to every frame: a one-click form that approves someone must not be clickjacked, and the
  // person opens it in a tab of their own anyway.
  const frameable = kind === 'agreement' && target.options.agreementFrame === 'allow';
  const nonce = randomBytes(16).toString('base64');
  const payer = target.payerOfUser(userId);
  if (payer === undefined) return sendPage(res, 404, notFoundPage(nonce), nonce, frameable);
  if (kind === 'agreement') return sendPage(res, 200, agreementPage(userId, nonce), nonce, frameable);
  if (req.method === 'POST') {
    // The form has no fields; its body is read only so the connection can be used again.
    const body = await readBody(req, 64 * 1024);
    if (body.kind === 'aborted') return;
    try {
      target.setKyc(payer.clientUserId, 'approved');
    } catch {
      // Forgotten while its form was read (a reset).
      return sendPage(res, 404, notFoundPage(nonce), nonce, frameable);
    }
    // After a POST, a GET: reloading the page shows where the payer stands rather than sending the form again.
    res.writeHead(303, { location: `/__sandbox/kyc/${encodeURIComponent(userId)}`, 'content-length': '0' });
    return void res.end();
  }
  const verified = payer.kycStatus === target.options.kycWord;
  sendPage(res, 200, verified ? verifiedPage(nonce) : kycPage(userId, nonce), nonce, frameable);
}

function sendPage(res: ServerResponse, status: number, page: SafeHtml, nonce: string, frameable: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const policy = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    // The empty icon the pages name, so a browser asks for no /favicon.ico: that would reach the API and be counted.
    'img-src data:',
    "form-action 'self'",
    "base-uri 'none'",
    // Left out when allowed: no frame-ancestors at all lets any page frame it, whatever its scheme.
    ...(frameable ? [] : ["frame-ancestors 'none'"]),
  ].join('; ');
  const text = toText(page);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'content-security-policy': policy,
    ...(frameable ? {} : { 'x-frame-options': 'DENY' }),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // The KYC page says where the payer stands now.
    'cache-control': 'no-store',
  });
  res.end(text);
}

function agreementPage(userId: string, nonce: string): SafeHtml {
  const main = html`<h1>Payer agreement</h1>
<p class="note">The sandbox's stand-in for the service's payer agreement, for user <span class="id">${userId}</span>.
Nothing here is binding.</p>
<ol>
<li>The details you gave about yourself are true and your own.</li>
<li>The payments platform may check your identity and keep your bank account's details to pay you.</li>
<li>You will tell the platform when those details change.</li>
</ol>
<button type="button" id="agree">I agree</button>
<p id="done" role="status" tabindex="-1"></p>`;
  // As the service's frame does: any parent may hear it, and the parent checks whose message it is by its origin.
  const script = html`<script nonce="${nonce}">
const agree = document.getElementById('agree');
const done = document.getElementById('done');
agree.addEventListener('click', () => {
  window.parent.postMessage({ agreements: 'complete' }, '*');
  agree.hidden = true;
  done.textContent = 'Thank you, you can close this page.';
  done.focus();
});
</script>`;
  return layout('Payer agreement', html`${main}${script}`, nonce);
}

function kycPage(userId: string, nonce: string): SafeHtml {
  const main = html`<h1>Verify your identity</h1>
<p class="note">The sandbox's stand-in for the service's identity check, for user <span class="id">${userId}</span>.
One click approves it, as a person's verification would.</p>
<form method="post"><button type="submit">Verify my identity</button></form>`;
  return layout('Verify your identity', main, nonce);
}

function verifiedPage(nonce: string): SafeHtml {
  return layout('Verified', html`<h1>Verified</h1><p>Your identity is verified. You can close this page.</p>`, nonce);
}

function notFoundPage(nonce: string): SafeHtml {
  const main = html`<h1>Page not found</h1><p>No payer has this link. Check that it was copied whole.</p>`;
  return layout('Page not found', main, nonce);
}

function layout(title: string, main: SafeHtml, nonce: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">
body { margin: 0; padding: 1rem; font: 1rem/1.5 system-ui, sans-serif; color: #1a1a1a; background: #fff; }
main { max-width: 40rem; margin: 0 auto; }
h1 { font-size: 1.5rem; line-height: 1.25; }
.note { color: #4a4a4a; }
.id { overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
button { min-height: 2.75rem; padding: 0.5rem 1.25rem; border: 0; border-radius: 0.375rem; font: inherit;
  color: #fff; background: #1d4ed8; cursor: pointer; }
button:focus-visible, #done:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}
