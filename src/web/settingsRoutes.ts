import type { FastifyInstance } from 'fastify';
import { html, type SafeHtml } from '../core/html.js';
import { actorOf, type Audit } from './Audit.js';
import { FOUR_EYES_SETTING, type FourEyes, type FourEyesStand, fourEyesWords } from './fourEyes.js';
import { layout } from './layout.js';
import type { SignedIn } from './WebAuth.js';

/** The choices of the four-eyes setting: as the team is (no setting), on, off. */
const CHOICES = ['team', 'on', 'off'] as const;
type Choice = (typeof CHOICES)[number];

/**
 * The team's settings, an admin's alone (no line in the roles' table): four eyes as the team is (on with two
 * approvers or more), on, or off. A change is written with its audit line, in one transaction.
 */
export async function settingsRoutes(app: FastifyInstance, spec: { fourEyes: FourEyes; audit: Audit }): Promise<void> {
  app.get('/admin/settings', async (request, reply) => {
    const session = (request as SignedIn).session;
    const saved = (request.query as Record<string, unknown>).saved !== undefined;
    const body = settingsPage(await spec.fourEyes.stand(), session.csrf, saved);
    return reply.type('text/html').send(layout('Settings', body, session));
  });
  app.post('/admin/settings', async (request, reply) => {
    const posted = (request.body as Record<string, unknown> | undefined)?.fourEyes;
    const to = CHOICES.find((choice) => choice === posted);
    if (to === undefined) return reply.code(400).send();
    const from = choiceOf(await spec.fourEyes.stand());
    if (to !== from) {
      const line = spec.audit.line(actorOf(request as SignedIn), 'setting changed', FOUR_EYES_SETTING, { from, to });
      await spec.fourEyes.set(to === 'team' ? undefined : to, line);
    }
    return reply.redirect('/admin/settings?saved', 303);
  });
}

const choiceOf = (stand: FourEyesStand): Choice => stand.set ?? 'team';

function settingsPage(stand: FourEyesStand, csrf: string, saved: boolean): SafeHtml {
  const chosen = choiceOf(stand);
  const option = (value: Choice, words: string) =>
    html`<p><input type="radio" id="four-eyes-${value}" name="fourEyes" value="${value}"${value === chosen ? html` checked` : ''}> <label class="inline" for="four-eyes-${value}">${words}</label></p>`;
  const approvers = stand.approvers === 1 ? '1 approver' : `${stand.approvers} approvers`;
  return html`<h1>Settings</h1>
${saved ? html`<p class="ok" role="status">Saved.</p>` : ''}
<section class="card" aria-labelledby="four-eyes-title">
<h2 id="four-eyes-title">Four eyes</h2>
<p id="four-eyes-now">${fourEyesWords(stand)}.</p>
<p>The team has ${approvers} who can sign in (admins count as approvers).</p>
<form method="post" action="/admin/settings">
<input type="hidden" name="_csrf" value="${csrf}">
<fieldset><legend>Before an upload's bank details are sent</legend>
${option('team', 'As the team is: on with two approvers or more, off with one')}
${option('on', 'On: a second person approves every upload before it is sent')}
${option('off', 'Off: an approver sends an upload alone')}
</fieldset>
<p class="hint">Whatever is chosen, a row that gives a payer who has a bank account another one is sent only once an approver who neither uploaded nor changed the upload approved it.</p>
<button type="submit">Save</button>
</form>
</section>`;
}
