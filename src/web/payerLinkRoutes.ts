import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PayerDirectoryTables } from '../store/Store.js';
import { html, type SafeHtml } from '../core/html.js';
import { actorOf, type Audit } from './Audit.js';
import { layout } from './layout.js';
import type { PayerBook } from './payerBook.js';
import { issueLink } from './payerLinks.js';
import type { Session, SignedIn } from './WebAuth.js';

/** What the team needs to hand a payer a new link, or end theirs: where links are kept and where they lead. */
export interface LinkSpec {
  directory: PayerDirectoryTables;
  /** serve's public address: the links lead to its `/p/`. */
  publicUrl: string;
  /** Days a new link stays valid. */
  days: number;
}

/**
 * On a payer's page of the team's: a new personal link (shown once, to copy and hand over: the store keeps only its
 * hash), and the revocation of every link the payer has (their page then says the link is no longer valid). Both are
 * forms of the signed-in scope: its same-site and CSRF checks come first. Each enters the audit trail.
 */
export async function payerLinkRoutes(
  app: FastifyInstance,
  spec: { links?: LinkSpec | undefined; book: Pick<PayerBook, 'line'>; audit: Audit },
): Promise<void> {
  const { links } = spec;
  if (links === undefined) return;
  app.post('/payers/:id/links/new', async (request, reply) => {
    const session = (request as SignedIn).session;
    const id = (request.params as { id: string }).id;
    if ((await spec.book.line(id)) === undefined) return noSuchPayer(reply, session);
    const made = await issueLink(links.directory, id, {
      now: new Date(),
      days: links.days,
      publicUrl: links.publicUrl,
    });
    await spec.audit.record(actorOf(request as SignedIn), 'new link', id, { expiresAt: made.expiresAt });
    return reply.type('text/html').send(layout('New link', newLinkPage(id, made), session, ['live.js']));
  });
  app.post('/payers/:id/links/revoke', async (request, reply) => {
    const session = (request as SignedIn).session;
    const id = (request.params as { id: string }).id;
    if ((await spec.book.line(id)) === undefined) return noSuchPayer(reply, session);
    const revoked = await links.directory.revokeLinks(id, new Date().toISOString());
    await spec.audit.record(actorOf(request as SignedIn), 'revoke', id, { links: revoked });
    const said =
      revoked === 0
        ? 'The payer had no link still valid.'
        : `${revoked === 1 ? '1 link' : `${revoked} links`} revoked: the payer's page now says the link is not valid.`;
    return reply.type('text/html').send(
      layout(
        'Links revoked',
        html`<h1>${id}</h1><p class="ok" role="status">${said}</p>
<p>Make a new link on the payer's page when they should have one again.</p>
<p><a href="/payers/${encodeURIComponent(id)}">Back to ${id}</a></p>`,
        session,
      ),
    );
  });
}

function newLinkPage(id: string, made: { url: string; expiresAt: string }): SafeHtml {
  return html`<h1>A new link for ${id}</h1>
<p>Hand it to the payer: it opens their own page until ${made.expiresAt.slice(0, 10)}. It is shown only now: the tool keeps only a digest of it. Their earlier links stay valid until they expire or are revoked.</p>
<p class="card" id="new-link"><span class="link-text">${made.url}</span></p>
<p><button type="button" class="copy" data-copy="${made.url}">Copy the link</button></p>
<p><a href="/payers/${encodeURIComponent(id)}">Back to ${id}</a></p>`;
}

/** The payer's section of links on the team's page of one payer: the two forms. */
export function linkForms(id: string, csrf: string): SafeHtml {
  const path = `/payers/${encodeURIComponent(id)}/links`;
  return html`<h2>The payer's own page</h2>
<p>A personal link leads the payer to their page, where they sign the agreement and verify their identity.</p>
<div class="actions">
  <form method="post" action="${path}/new"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">New link</button></form>
  <form method="post" action="${path}/revoke"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Revoke the payer's links</button></form>
</div>`;
}

function noSuchPayer(reply: FastifyReply, session: Session): FastifyReply {
  return reply
    .code(404)
    .type('text/html')
    .send(layout('Not found', html`<h1>No such payer</h1><p><a href="/payers">All payers</a></p>`, session));
}
