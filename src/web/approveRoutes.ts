import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InboxRunInput } from '../inbox/Inbox.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { actorOf, type Audit } from './Audit.js';
import type { FourEyes, SendGate } from './fourEyes.js';
import { layout } from './layout.js';
import { refusalPage } from './pages.js';
import { REVIEW_ROWS, reviewPage } from './reviewPage.js';
import type { Upload, Uploads } from './Uploads.js';
import { personOf } from './uploadTable.js';
import type { SignedIn } from './WebAuth.js';

/** What approving and sending need of the upload routes' spec. */
interface ApproveSpec {
  uploads: Uploads;
  fourEyes: FourEyes;
  audit: Audit;
  runInput: InboxRunInput;
  context: RunContext;
  service: string;
  onSent: () => void;
}

/**
 * The approver's page of an upload (its rows' bank details in full, each showing in the audit trail), Approve, and
 * Send, which sends an upload only as four eyes and its rows allow: with no approval needed, any approver sends it;
 * otherwise an approval of exactly what is sent must hold, given by an approver who neither uploaded nor changed it,
 * with the send (Approve and send) or before it (Approve only: the uploader, or any approver, sends it then).
 */
export async function approveRoutes(app: FastifyInstance, spec: ApproveSpec): Promise<void> {
  const check = { input: spec.runInput, context: spec.context };
  /** The upload as it stands, with its content's hash and what the person asking may do with it. */
  const standing = async (request: FastifyRequest, upload: Upload) => {
    const now = await spec.uploads.current(upload, check);
    const fixes = await spec.uploads.fixes(now);
    const hash = await spec.uploads.hash(now, fixes);
    const gate = await spec.fourEyes.gate(now, fixes, hash, (request as SignedIn).session.user);
    return { upload: now, fixes, hash, gate };
  };

  app.get('/uploads/:id/review', (request, reply) => spec.uploads.serial(idOf(request), () => review(request, reply)));
  async function review(request: FastifyRequest, reply: FastifyReply) {
    const session = (request as SignedIn).session;
    const found = await spec.uploads.get(idOf(request));
    if (found === undefined) return reply.code(404).send();
    if (found.sentAs !== undefined) return reply.redirect(`/uploads/${found.id}`, 303);
    const { upload, fixes, hash, gate } = await standing(request, found);
    const table = await spec.uploads.table(upload, REVIEW_ROWS);
    const page = reviewPage({ ...{ upload, table, fixes, gate, hash }, csrf: session.csrf, service: spec.service });
    // Written before the page goes: a showing that cannot be recorded is not made.
    await spec.audit.record(actorOf(request as SignedIn), 'bank details viewed', upload.id, { rows: page.rows, hash });
    return reply.type('text/html').send(layout(`Check ${upload.name}`, page.body, session));
  }

  // Approve only (the uploader, or any approver, sends it later), or Send: approving first when the form asks to.
  app.post('/uploads/:id/approve', (request, reply) =>
    spec.uploads.serial(idOf(request), () => act(request, reply, false)),
  );
  app.post('/uploads/:id/send', (request, reply) =>
    spec.uploads.serial(idOf(request), () => act(request, reply, true)),
  );
  async function act(request: FastifyRequest, reply: FastifyReply, sending: boolean) {
    const signedIn = request as SignedIn;
    const found = await spec.uploads.get(idOf(request));
    if (found === undefined) return reply.code(404).send();
    if (found.sentAs !== undefined) return reply.redirect(`/uploads/${found.id}`, 303);
    if (found.check === undefined || found.check.ok === 0 || found.check.unusable !== undefined)
      return reply.code(409).send();
    let { upload, hash, gate } = await standing(request, found);
    // Checked again here, it may have become unusable: its page says why.
    if (upload.check?.unusable !== undefined) return reply.redirect(`/uploads/${upload.id}`, 303);
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!sending || body.approve === '1') {
      if (gate.may !== 'approve') return refuse(reply, signedIn, 403, refusal(gate, 'not approved'));
      // The approval covers what the approver saw: the content of the page they posted from, if it is still this.
      if (body.hash !== hash)
        return refuse(reply, signedIn, 409, 'not done: the upload changed since you looked at it. Look at it again.');
      upload = await spec.uploads.approve(upload, personOf(signedIn.session.user), hash);
      const newAccounts = gate.newAccounts;
      await spec.audit.record(actorOf(signedIn), 'approved', upload.id, { hash, rows: upload.check?.ok, newAccounts });
      if (!sending) return reply.redirect(`/uploads/${upload.id}`, 303);
      gate = { ...gate, may: 'send' };
    }
    if (gate.may !== 'send') return refuse(reply, signedIn, 403, refusal(gate, 'not sent'));
    // An approval a change voided is not what the file went with (the audit trail keeps it).
    if (upload.approval !== undefined && upload.approval.hash !== hash) {
      const { approval: _void, ...rest } = upload;
      upload = rest;
    }
    // The line is written once this serve has the claim and before the file goes into the inbox: a file the inbox
    // runs always has its sender's line, whatever stops serve between the two. Not sent here when its check, made again
    // here, found it unusable (its page says why), or when another serve over the store sent it first (its line is
    // that serve's).
    const approvedBy = upload.approval?.by.name;
    let announced = false;
    const line = (file: string) => ({
      ...{ file, rows: upload.check?.ok, hash },
      ...(approvedBy === undefined ? {} : { approvedBy }),
    });
    try {
      const { sentHere } = await spec.uploads.send(upload, check, personOf(signedIn.session.user), async (file) => {
        await spec.audit.record(actorOf(signedIn), 'sent', upload.id, line(file));
        announced = true;
      });
      if (sentHere) spec.onSent();
    } catch (error) {
      // The file did not go: the line above is answered by this one.
      if (announced)
        await spec.audit.record(actorOf(signedIn), 'send failed', upload.id, { why: 'not put into the inbox' });
      throw error;
    }
    return reply.redirect(`/uploads/${upload.id}`, 303);
  }
}

const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

/** Why this person cannot approve or send the upload now, in one sentence. */
function refusal(gate: SendGate, what: 'not approved' | 'not sent'): string {
  if (gate.may === 'involved')
    return `${what}: you uploaded or changed this upload, so another approver approves it before it is sent`;
  if (gate.may === 'send') return `${what}: it needs no approval now, or has one that holds: send it from its page`;
  return `${what}: it needs a second person's approval first: check its bank details on its page, then approve and send`;
}

function refuse(reply: FastifyReply, request: SignedIn, status: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html')
    .send(layout('Not sent', refusalPage(message), request.session));
}
