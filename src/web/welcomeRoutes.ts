import type { FastifyInstance, FastifyReply } from 'fastify';
import { clientKey } from '../core/clientKey.js';
import { html, type SafeHtml } from '../core/html.js';
import type { ControlTables } from '../store/Store.js';
import type { Audit } from './Audit.js';
import { layout } from './layout.js';
import { PASSWORD_LINK_PATH, setPassword } from './teamUsers.js';
import { MIN_PASSWORD, type Session, type WebAuth } from './WebAuth.js';

export interface WelcomeSpec {
  auth: WebAuth;
  audit: Audit;
  controls: ControlTables;
  /** Signs the browser in: sets its session's and device's cookies. */
  signedIn: (reply: FastifyReply, opened: { token: string; session: Session; device: string }) => FastifyReply;
}

/**
 * A user's one-time link: the page that sets their password (the link is used by the form, never by opening it, so
 * that a mail scanner that follows links uses nothing), then signs them in.
 */
export function welcomeRoutes(app: FastifyInstance, spec: WelcomeSpec): void {
  const path = `${PASSWORD_LINK_PATH}:token`;
  app.get(path, async (_request, reply) => reply.type('text/html').send(layout('Set your password', welcomePage())));
  app.post(path, async (request, reply) => {
    const { token } = request.params as { token: string };
    const body = (request.body as Record<string, unknown> | undefined) ?? {};
    const password = typeof body.password === 'string' ? body.password : '';
    if (password !== body.again)
      return reply
        .code(400)
        .type('text/html')
        .send(layout('Set your password', welcomePage('The two passwords differ: type the same one twice.')));
    const address = clientKey(request.ip);
    const set = await setPassword(spec.controls, spec.audit, token, password, address);
    if ('problem' in set)
      return reply
        .code(400)
        .type('text/html')
        .send(layout('Set your password', welcomePage(`Not set: ${set.problem}.`)));
    const { user } = set;
    const opened = await spec.auth.open({ userId: user.id, name: user.name, role: user.role });
    await spec.audit.record({ who: user.name, address }, 'sign-in', user.id, { role: user.role, how: 'one-time link' });
    return spec.signedIn(reply, opened).redirect('/', 303);
  });
}

function welcomePage(problem?: string): SafeHtml {
  return html`<h1>Set your password</h1>
<form method="post" class="card narrow">
  ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
  <p>At least ${MIN_PASSWORD} characters: a few words you will remember make a good one. This link works once.</p>
  <label for="password">New password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" required autofocus>
  <label for="again">The same again</label>
  <input id="again" name="again" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" required>
  <button type="submit">Set it and sign in</button>
</form>`;
}
