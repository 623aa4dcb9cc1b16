import { cli } from '../../src/cli.js';
import { API_KEY, memoryStream } from './runHarness.js';
import type { WebSession } from './webSession.js';

/**
 * `payer-onboard users add NAME --role ROLE` against the store of a serve's state dir, as an operator runs it (in
 * this process: the command's own code, without a process's start): the one-time link it prints.
 */
export async function addUser(
  where: { stateDir: string; baseUrl: string; publicUrl: string; cwd: string },
  name: string,
  role: string,
): Promise<string> {
  const out = memoryStream();
  const err = memoryStream();
  const args = ['users', 'add', name, '--role', role, '--public-url', where.publicUrl];
  const code = await cli([...args, '--state-dir', where.stateDir, '--base-url', where.baseUrl], {
    ...{ stdout: out.stream, stderr: err.stream, cwd: where.cwd },
    env: { PAYER_API_KEY: API_KEY },
    signal: new AbortController().signal,
  });
  if (code !== 0) throw new Error(`users add ${name}: ${code} ${err.text()}`);
  return out.text().trim();
}

/** A file uploaded on the page by a signed-in person: the upload's id. */
export async function uploadAs(url: string, session: WebSession, name: string, text: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  const res = await fetch(`${url}/uploads?_csrf=${encodeURIComponent(session.csrf)}`, {
    method: 'POST',
    body: form,
    headers: { cookie: session.cookie },
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`upload of ${name}: ${res.status} ${await res.text()}`);
  return res.headers.get('location')!.split('/').pop()!;
}

/** A page of the team's as the session sees it. */
export async function pageAs(url: string, session: WebSession, path: string): Promise<string> {
  return (await fetch(`${url}${path}`, { headers: { cookie: session.cookie } })).text();
}
