import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { nestError } from './nestError.js';
import { readBody } from './readBody.js';
import { send } from './send.js';
import type { SandboxHandle } from './startSandbox.js';

// The sandbox's own endpoints under /__sandbox: no key needed, not counted in the stats, no latency
// or faults. They let a sandbox started by the CLI be inspected and scripted from another process.

export const ADMIN_PREFIX = '/__sandbox';

export async function handleAdmin(req: IncomingMessage, res: ServerResponse, pathname: string, sandbox: SandboxHandle): Promise<void> {
  const method = req.method ?? 'GET';
  const rest = pathname.slice(ADMIN_PREFIX.length).replace(/\/$/, '');
  const [, what, param] = rest.split('/');
  const decoded = safeDecode(param);

  if (method === 'GET' && rest === '/stats') return void send(res, 200, sandbox.stats());
  if (method === 'GET' && rest === '/arrivals') return void send(res, 200, { arrivals: sandbox.arrivals() });
  if (method === 'GET' && what === 'payers' && decoded !== undefined) {
    const payer = sandbox.payer(decoded);
    return void send(res, payer ? 200 : 404, payer ?? nestError(404, `Payer with client user ID ${decoded} not found`));
  }
  if (method === 'GET' && (what === 'agreement' || what === 'kyc') && decoded !== undefined) {
    // Where the compliance answer's links point: a page that says what it is, so a demo's links work.
    const page = `<!doctype html><title>Sandbox ${what}</title><p>Payer API sandbox: the ${what === 'kyc' ? 'identity verification' : 'agreement'} page of user ${escapeHtml(decoded)} would be here.</p>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
    return void res.end(page);
  }
  if (method === 'POST' && (rest === '/script' || rest === '/reset')) {
    const body = await readBody(req, 1024 * 1024);
    if (body.kind !== 'ok') return void send(res, 400, nestError(400, 'Unreadable request body'));
    if (rest === '/reset') {
      sandbox.reset();
      return void send(res, 200, { reset: true });
    }
    let steps: unknown;
    try {
      const parsed: unknown = JSON.parse(body.text || '[]');
      steps = Array.isArray(parsed) ? parsed : (parsed as { steps?: unknown } | null)?.steps;
    } catch {
      return void send(res, 400, nestError(400, 'Malformed JSON in request body'));
    }
    try {
      sandbox.script(steps as never);
    } catch (error) {
      const messages = error instanceof z.ZodError
        ? error.issues.map((i) => `steps.${i.path.map(String).join('.')}: ${i.message}`)
        : ['body must be an array of steps or { "steps": [...] }'];
      return void send(res, 400, nestError(400, messages));
    }
    return void send(res, 200, { pending: sandbox.pendingScript() });
  }
  send(res, 404, nestError(404, `Cannot ${method} ${pathname}`));
}

function safeDecode(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
