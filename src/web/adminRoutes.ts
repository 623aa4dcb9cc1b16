import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientKey } from '../core/clientKey.js';
import { html } from '../core/html.js';
import type { MailSettings } from '../mail/index.js';
import type { AuditFilter, ControlTables, WebUser } from '../store/Store.js';
import type { Actor, Audit } from './Audit.js';
import { auditPage, type UsersNote, usersPage } from './adminPages.js';
import { AUDIT_CSV_COLUMNS, AUDIT_PAGE_SIZE, auditCsvLine, auditViewOf } from './auditView.js';
import { layout } from './layout.js';
import { isRole } from './roles.js';
import { addUser, changeUser, mailPasswordLink, passwordLink } from './teamUsers.js';
import type { Session, SignedIn } from './WebAuth.js';

export interface AdminSpec {
  controls: ControlTables;
  audit: Audit;
  /** serve's public address: the one-time links lead there; without it, to the address the admin's request came to. */
  publicUrl?: string | undefined;
  /** serve's mail settings, when its mail is set up: a user's one-time link is mailed to them too. */
  mail?: MailSettings | undefined;
}

/** Lines of the trail read at a time for the CSV download. */
const CSV_BATCH = 1000;

/**
 * The admin's pages: the users (added, given a role, disabled or enabled, handed a new one-time link, each through
 * teamUsers.ts, which writes the audit line) and the audit trail, read and downloaded. No route changes or removes a
 * line of the trail (and the store refuses it). Every route here is the admin's: roles.ts names none of them.
 */
export async function adminRoutes(app: FastifyInstance, spec: AdminSpec): Promise<void> {
  userRoutes(app, spec);
  auditRoutes(app, spec);
}

function userRoutes(app: FastifyInstance, spec: AdminSpec): void {
  const answer = (request: FastifyRequest, reply: FastifyReply, note?: UsersNote, status?: number) =>
    usersAnswer(spec, request, reply, note, status);
  /** The user the route's id names, if any. */
  const userOf = (request: FastifyRequest) => spec.controls.user({ id: (request.params as { id: string }).id });

  app.get('/admin/users', async (request, reply) => answer(request, reply));

  app.post('/admin/users', async (request, reply) => {
    const body = formOf(request);
    const form = { name: body.name ?? '', role: body.role ?? '', email: body.email ?? '' };
    if (!isRole(form.role))
      return answer(request, reply, { problem: 'Not added: choose one of the roles.', form }, 400);
    const added = await addUser(spec.controls, spec.audit, actorOf(request), { ...form, role: form.role });
    if ('problem' in added) return answer(request, reply, { problem: `Not added: ${added.problem}.`, form }, 400);
    const { user } = added;
    const shared = (request as SignedIn).session.user.userId === undefined;
    const ok = shared
      ? `${user.name} added as ${user.role}. The shared password signs in no more: sign in through a named user's link.`
      : `${user.name} added as ${user.role}.`;
    return answer(request, reply, { ok, link: await linkFor(spec, request, user) });
  });

  app.post('/admin/users/:id/role', async (request, reply) => {
    const user = await userOf(request);
    if (user === undefined) return noSuchUser(reply, (request as SignedIn).session);
    const role = formOf(request).role;
    if (!isRole(role)) return answer(request, reply, { problem: 'Not changed: choose one of the roles.' }, 400);
    if (isSelf(request, user) && role !== 'admin') return answer(request, reply, { problem: SELF_PROBLEM }, 400);
    if (user.role === role) return answer(request, reply, { ok: `${user.name} is ${role} already.` });
    await changeUser(spec.controls, spec.audit, actorOf(request), user, { role });
    return answer(request, reply, { ok: `${user.name} is now ${role}.` });
  });

  for (const disabled of [true, false]) {
    app.post(`/admin/users/:id/${disabled ? 'disable' : 'enable'}`, async (request, reply) => {
      const user = await userOf(request);
      if (user === undefined) return noSuchUser(reply, (request as SignedIn).session);
      if (disabled && isSelf(request, user)) return answer(request, reply, { problem: SELF_PROBLEM }, 400);
      if ((user.disabledAt !== undefined) === disabled)
        return answer(request, reply, { ok: `${user.name} is ${disabled ? 'disabled' : 'enabled'} already.` });
      await changeUser(spec.controls, spec.audit, actorOf(request), user, { disabled });
      const ok = disabled
        ? `${user.name} is disabled: their sessions have ended, and they sign in no more.`
        : `${user.name} is enabled: they sign in again with their password.`;
      return answer(request, reply, { ok });
    });
  }

  app.post('/admin/users/:id/link', async (request, reply) => {
    const user = await userOf(request);
    if (user === undefined) return noSuchUser(reply, (request as SignedIn).session);
    if (user.disabledAt !== undefined)
      return answer(request, reply, { problem: `${user.name} is disabled: enable them first.` }, 400);
    return answer(request, reply, { link: await linkFor(spec, request, user) });
  });
}

function auditRoutes(app: FastifyInstance, spec: AdminSpec): void {
  app.get('/admin/audit', async (request, reply) => {
    const session = (request as SignedIn).session;
    const { view, filter, problems } = auditViewOf(request.query);
    const [lines, total, users] = await Promise.all([
      spec.controls.auditLines(filter, (view.page - 1) * AUDIT_PAGE_SIZE, AUDIT_PAGE_SIZE),
      spec.controls.auditCount(filter),
      spec.controls.users(),
    ]);
    const body = auditPage(
      { lines, total },
      view,
      users.map((user) => user.name),
      problems,
    );
    return reply
      .code(problems.length > 0 ? 400 : 200)
      .type('text/html')
      .send(layout('Audit trail', body, session, ['live.js', 'audit.js']));
  });

  // Every line the filters keep, as the trail stood when it was asked for: the download's own line, written first (a
  // download that cannot be recorded is not made), is in the next one.
  app.get('/admin/audit.csv', async (request, reply) => {
    const session = (request as SignedIn).session;
    const { view, filter, problems } = auditViewOf(request.query);
    if (problems.length > 0) {
      const body = html`<h1>Not downloaded</h1><p class="problem" role="alert">${problems.join('; ')}.</p>`;
      return reply
        .code(400)
        .type('text/html')
        .send(layout('Not downloaded', body, session));
    }
    const newest = (await spec.controls.auditLines(filter, 0, 1))[0]?.seq;
    const count = newest === undefined ? 0 : await spec.controls.auditCount(filter);
    const given = Object.fromEntries(Object.entries(view).filter(([k, v]) => v !== '' && k !== 'page'));
    await spec.audit.record(actorOf(request), 'audit downloaded', '', { ...given, lines: count });
    const csv = stringify({ header: true, columns: AUDIT_CSV_COLUMNS });
    void writeLines(spec.controls, filter, newest, csv).catch((error: unknown) => csv.destroy(error as Error));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="audit-trail.csv"')
      .send(csv);
  });
}

/** The users page, with what the action that led to it says. */
async function usersAnswer(
  spec: AdminSpec,
  request: FastifyRequest,
  reply: FastifyReply,
  note: UsersNote = {},
  status = 200,
): Promise<FastifyReply> {
  const session = (request as SignedIn).session;
  const body = usersPage(await spec.controls.users(), session.user, session.csrf, note);
  return reply
    .code(status)
    .type('text/html')
    .send(layout('Users', body, session, ['live.js']));
}

/** A user's one-time link, made and (with serve's mail set up and their address) mailed: what the page shows of it. */
async function linkFor(
  spec: AdminSpec,
  request: FastifyRequest,
  user: WebUser,
): Promise<NonNullable<UsersNote['link']>> {
  const actor = actorOf(request);
  const publicUrl = spec.publicUrl ?? `${request.protocol}://${request.headers.host}`;
  const made = await passwordLink(spec.controls, spec.audit, actor, user, publicUrl);
  const link = { name: user.name, url: made.url };
  if (user.email === undefined) return link;
  if (spec.mail === undefined) return { ...link, mailed: "serve's mail is not set up: hand the link over yourself." };
  const sent = await mailPasswordLink(spec.mail, spec.audit, actor, { ...user, email: user.email }, made.url);
  const mailed =
    sent.kind === 'sent'
      ? `Mailed to ${user.email} too.`
      : `The mail to ${user.email} did not go (${sent.reason}): hand the link over yourself.`;
  return { ...link, mailed };
}

/** Who acts: the signed-in user, from the client's address as the throttle counts it. */
function actorOf(request: FastifyRequest): Actor {
  return { who: (request as SignedIn).session.user.name, address: clientKey(request.ip) };
}

const SELF_PROBLEM =
  'Not changed: you cannot disable yourself or take away your own admin role, or the team could be left without an admin. Another admin can.';

/**
 * The lines up to `newest`, newest first, a batch at a time. New lines come in at the top while it reads, moving the
 * older ones down: a line read before (its seq not below the last written) is not written twice.
 */
async function writeLines(
  controls: ControlTables,
  filter: AuditFilter,
  newest: number | undefined,
  csv: ReturnType<typeof stringify>,
): Promise<void> {
  let below = newest === undefined ? 0 : newest + 1;
  for (let offset = 0; below > 0; offset += CSV_BATCH) {
    const lines = await controls.auditLines(filter, offset, CSV_BATCH);
    for (const line of lines) {
      const seq = line.seq ?? 0;
      if (seq >= below) continue;
      below = seq;
      if (!csv.write(auditCsvLine(line))) await once(csv, 'drain');
    }
    if (lines.length < CSV_BATCH) break;
  }
  csv.end();
}

/** A posted form's text fields. */
function formOf(request: FastifyRequest): Record<string, string | undefined> {
  const body = (request.body as Record<string, unknown> | undefined) ?? {};
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
}

function isSelf(request: FastifyRequest, user: WebUser): boolean {
  return (request as SignedIn).session.user.userId === user.id;
}

function noSuchUser(reply: FastifyReply, session: Session): FastifyReply {
  return reply
    .code(404)
    .type('text/html')
    .send(layout('Not found', html`<h1>No such user</h1><p><a href="/admin/users">All users</a></p>`, session));
}
