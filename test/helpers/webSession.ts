/** A browser's session on the team's page, as a test's fetch carries it: its cookies and its CSRF token. */
export interface WebSession {
  /** The Cookie header: the session's, and the device's once it signed in. */
  cookie: string;
  csrf: string;
  /** The device cookie (`payer_onboard_device=...`) the sign-in gave. */
  device: string;
}

function form(fields: Record<string, string>) {
  return {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/** The cookies a sign-in's answer set, by name. */
function cookiesOf(res: Response): Map<string, string> {
  return new Map(
    res.headers.getSetCookie().map((line) => {
      const pair = line.split(';')[0]!;
      return [pair.slice(0, pair.indexOf('=')), pair] as const;
    }),
  );
}

/** The session a sign-in's answer opened, with the CSRF token of the page `start` (`/payers` for a viewer). */
async function sessionOf(url: string, res: Response, start: string): Promise<WebSession> {
  if (res.status !== 303) throw new Error(`not signed in: ${res.status} ${await res.text()}`);
  const cookies = cookiesOf(res);
  const session = cookies.get('payer_onboard_session')!;
  const device = cookies.get('payer_onboard_device')!;
  const page = await (await fetch(`${url}${start}`, { headers: { cookie: session } })).text();
  return { cookie: `${session}; ${device}`, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]!, device };
}

/** Signs in with a name and password (no name: the shared password). */
export async function signInAs(
  url: string,
  given: { name?: string; password: string },
  start = '/payers',
): Promise<WebSession> {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    ...form({ name: given.name ?? '', password: given.password }),
  });
  return sessionOf(url, res, start);
}

/** Sets a user's password through their one-time link, which signs them in. */
export async function welcome(link: string, password: string, start = '/payers'): Promise<WebSession> {
  const res = await fetch(link, { method: 'POST', redirect: 'manual', ...form({ password, again: password }) });
  return sessionOf(new URL(link).origin, res, start);
}

/** A form posted with the session (its CSRF token added): the answer, not followed. */
export function post(url: string, session: WebSession, fields: Record<string, string> = {}): Promise<Response> {
  const sent = form({ ...fields, _csrf: session.csrf });
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    body: sent.body,
    headers: { ...sent.headers, cookie: session.cookie },
  });
}
