import { randomBytes, randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { createMailer, type MailSettings, type SendOutcome } from '../mail/index.js';
import type { ControlTables, Role, WebUser } from '../store/Store.js';
import type { Actor, Audit } from './Audit.js';
import { hashOf, hashPassword, MIN_PASSWORD, SHARED_NAME } from './WebAuth.js';

/** How long a one-time link to set a password stays valid. */
export const PASSWORD_LINK_HOURS = 72;
/** Where a one-time link leads: the page that sets the password. */
export const PASSWORD_LINK_PATH = '/welcome/';

/** Who acts from the command line or the inbox: the OS user and host, as the audit trail names them. */
export function osActor(): Actor {
  const host = hostname();
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // A user with no name in the system's database: the uid stands.
    user = String(process.getuid?.() ?? 'unknown');
  }
  return { who: `os:${user}@${host}`, address: host };
}

/** A new user, or why not (a name taken, or one the page cannot take). */
export async function addUser(
  tables: ControlTables,
  audit: Audit,
  actor: Actor,
  given: { name: string; role: Role; email?: string | undefined },
  now = new Date(),
): Promise<{ user: WebUser } | { problem: string }> {
  const name = given.name.trim();
  if (name === '' || name.length > 64 || /[\p{Cc}]/u.test(name))
    return { problem: 'a name must be 1 to 64 characters, with no control character' };
  if (name.toLowerCase() === SHARED_NAME) return { problem: `"${SHARED_NAME}" is the shared password's name` };
  const email = given.email?.trim() || undefined;
  if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    return { problem: 'the e-mail address is not one: give name@example.com' };
  const user: WebUser = {
    id: randomUUID(),
    name,
    role: given.role,
    ...(email === undefined ? {} : { email }),
    createdAt: now.toISOString(),
    createdBy: actor.who,
  };
  if (!(await tables.addUser(user))) return { problem: `there is a user named ${name} already` };
  await audit.record(actor, 'user added', user.id, { name, role: user.role, email: email !== undefined });
  return { user };
}

/**
 * A one-time link for the user to set their password with (the token only in the link, kept as its hash): for the
 * admin to hand over, or to mail.
 */
export async function passwordLink(
  tables: ControlTables,
  audit: Audit,
  actor: Actor,
  user: WebUser,
  publicUrl: string,
  now = new Date(),
): Promise<{ url: string; expiresAt: string }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_HOURS * 3_600_000).toISOString();
  await tables.addUserLink({ tokenHash: hashOf(token), userId: user.id, createdAt: now.toISOString(), expiresAt });
  await audit.record(actor, 'password link made', user.id, { name: user.name, expiresAt });
  return { url: `${publicUrl.replace(/\/+$/, '')}${PASSWORD_LINK_PATH}${token}`, expiresAt };
}

/** Sets a user's password through their one-time link: the user, or why not. */
export async function setPassword(
  tables: ControlTables,
  audit: Audit,
  token: string,
  password: string,
  address: string,
  now = new Date(),
): Promise<{ user: WebUser } | { problem: string }> {
  if (password.length < MIN_PASSWORD)
    return { problem: `a password must be at least ${MIN_PASSWORD} characters: a few words make a good one` };
  const userId = await tables.takeUserLink(hashOf(token), now.toISOString());
  const user = userId === undefined ? undefined : await tables.user({ id: userId });
  if (user === undefined || user.disabledAt !== undefined)
    return { problem: 'this link is used, expired or not valid: ask an admin for a new one' };
  const changed = { ...user, passwordHash: await hashPassword(password) };
  await tables.putUser(changed, now.toISOString());
  await audit.record({ who: user.name, address }, 'password set', user.id);
  return { user: changed };
}

/** A user disabled (never deleted: the audit trail names them), or given another role. */
export async function changeUser(
  tables: ControlTables,
  audit: Audit,
  actor: Actor,
  user: WebUser,
  change: { role: Role } | { disabled: boolean },
  now = new Date(),
): Promise<WebUser> {
  const changed: WebUser =
    'role' in change
      ? { ...user, role: change.role }
      : change.disabled
        ? { ...user, disabledAt: now.toISOString() }
        : (({ disabledAt: _, ...rest }) => rest)(user);
  await tables.putUser(changed);
  const detail = 'role' in change ? { name: user.name, from: user.role, to: change.role } : { name: user.name };
  const action = 'role' in change ? 'user role changed' : change.disabled ? 'user disabled' : 'user enabled';
  await audit.record(actor, action, user.id, detail);
  return changed;
}

/**
 * Mails a user their one-time link, in the tool's own plain words (they are of the team, not a payer: the team's
 * templates are the payers'), where serve's mail is set up; the outcome goes into the audit trail, never the address.
 */
export async function mailPasswordLink(
  settings: MailSettings,
  audit: Audit,
  actor: Actor,
  user: WebUser & { email: string },
  url: string,
): Promise<SendOutcome> {
  // The shared password is no one's name: the mail then says who as the team would.
  const by = actor.who === SHARED_NAME ? "Your team's admin" : actor.who;
  const mailer = createMailer(settings);
  try {
    const outcome = await mailer.sendNote({
      to: user.email,
      subject: `${settings.teamName}: set your password for payer-onboard`,
      text: [
        `Hello ${user.name},`,
        '',
        `${by} gave you a sign-in to the team's payer-onboard page, as ${user.role}.`,
        `Set your password with this link (at least ${MIN_PASSWORD} characters). It works once, within ${PASSWORD_LINK_HOURS} hours:`,
        '',
        url,
        '',
        'If you did not expect this mail, do not open the link: tell your team.',
        '',
        settings.teamName,
        '',
      ].join('\n'),
      secrets: [url],
    });
    const reason = outcome.kind === 'sent' ? {} : { reason: outcome.reason };
    await audit.record(actor, 'password link mailed', user.id, { name: user.name, outcome: outcome.kind, ...reason });
    return outcome;
  } finally {
    await mailer.close();
  }
}
