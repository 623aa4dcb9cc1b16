import { z } from 'zod';

// The API's routes and how a request finds one. Paths follow the API's documentation (and src/schema `paths`): the
// three writes (create compliance on its current path, and on the first documented one, deprecated since) and the
// two reads. clientUserId is
// URL-decoded, so `a%2Fb` reaches the handler as `a/b`.

const ROUTES = {
  compliance: 'POST /v2/payer',
  'compliance-v1': 'POST /v1/payer',
  'payment-details': 'POST /v2/payer/:clientUserId/payment-details',
  agreement: 'PATCH /v2/payer/:clientUserId',
  'read-payer': 'GET /v2/payer/:clientUserId',
  'read-payment-details': 'GET /v2/payer/:clientUserId/payment-details',
} as const;
export type RouteName = keyof typeof ROUTES;
/** A route by its name (`compliance`) or by method and template (`POST /v2/payer`). */
type RouteRef = RouteName | (typeof ROUTES)[RouteName];
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

export const isRead = (route: RouteName): boolean => route === 'read-payer' || route === 'read-payment-details';

function routeName(ref: string): RouteName | undefined {
  for (const [name, template] of Object.entries(ROUTES) as Array<[RouteName, string]>) {
    if (ref === name || ref === template) return name;
  }
  return undefined;
}

export type RouteMatch =
  | { kind: 'route'; route: RouteName; clientUserId: string }
  | { kind: 'not-found' }
  | { kind: 'bad-param' };

/** Express-like: one optional trailing slash, a path that exists under another method is still a 404 (as NestJS answers). */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const segments = trimmed.split('/').slice(1);
  const [version, resource, rawId, sub] = segments;
  if (resource !== 'payer') return { kind: 'not-found' };
  const route = routeOf(method, version, segments.length, sub);
  if (route === undefined) return { kind: 'not-found' };
  if (route === 'compliance' || route === 'compliance-v1') return { kind: 'route', route, clientUserId: '' };
  try {
    const clientUserId = decodeURIComponent(rawId ?? '');
    if (clientUserId === '') return { kind: 'not-found' };
    return { kind: 'route', route, clientUserId };
  } catch {
    return { kind: 'bad-param' };
  }
}

function routeOf(
  method: string,
  version: string | undefined,
  length: number,
  sub: string | undefined,
): RouteName | undefined {
  if (version === 'v1') return method === 'POST' && length === 2 ? 'compliance-v1' : undefined;
  if (version !== 'v2') return undefined;
  if (length === 2) return method === 'POST' ? 'compliance' : undefined;
  if (length === 3) return method === 'PATCH' ? 'agreement' : method === 'GET' ? 'read-payer' : undefined;
  if (length === 4 && sub === 'payment-details') {
    return method === 'POST' ? 'payment-details' : method === 'GET' ? 'read-payment-details' : undefined;
  }
  return undefined;
}

/** No URL parsing beyond splitting off the query: `new URL` would read `//x` as a host. */
export function splitUrl(url: string): { pathname: string; query: URLSearchParams } {
  const at = url.indexOf('?');
  return at === -1
    ? { pathname: url, query: new URLSearchParams() }
    : { pathname: url.slice(0, at), query: new URLSearchParams(url.slice(at + 1)) };
}

// Scripted answers make client tests deterministic without relying on fault rates: "the next
// create-compliance gets 500, the one after is handled normally", "429 with Retry-After: 2".
// A step is used by the next authorised request of its route (or of any route for '*'), in the
// order the steps were given; steps of other routes wait for theirs.

const SCRIPT_FAULTS = ['reset', 'slow', 'commit500'] as const;

const scriptStepSchema = z
  .object({
    /** A route name (`compliance`, `read-payer`, ...) or method and template (`GET /v2/payer/:clientUserId`); `*` (default) is any route. */
    route: z
      .string()
      .refine((r) => r === '*' || routeName(r) !== undefined, {
        message: `must be *, ${ROUTE_NAMES.join(', ')} or a route like "POST /v2/payer"`,
      })
      .default('*'),
    /** Answer this status without running the handler (for `commit500`: the status after the change, default 500). */
    status: z.number().int().min(200).max(599).optional(),
    /** Body for `status`: an object is sent as JSON, a string as text/plain. Default: a NestJS error body. */
    body: z.unknown().optional(),
    /** The answer's Content-Type, to pass for what a proxy or a captive portal sends (`text/html`). */
    contentType: z.string().min(1).optional(),
    /** `Retry-After` header value for `status` (seconds or an HTTP date). None unless given. */
    retryAfter: z.union([z.number().int().min(0), z.string().min(1)]).optional(),
    /**
     * reset: close the socket unanswered; slow: handle, then answer after `delayMs`; commit500: handle, then answer
     * `status` (500) with `body` (an error body by default): `status: 200` with an HTML body is a change made and
     * answered as no API does.
     */
    fault: z.enum(SCRIPT_FAULTS).optional(),
    delayMs: z.number().int().min(0).optional(),
    /** How many requests this step applies to. */
    times: z.number().int().min(1).default(1),
  })
  .refine((s) => s.status !== undefined || s.fault !== undefined, { message: 'a step needs a status or a fault' });

export type ScriptStep = Omit<z.input<typeof scriptStepSchema>, 'route'> & { route?: RouteRef | '*' };
export type ScriptedAnswer = Omit<z.output<typeof scriptStepSchema>, 'route' | 'times'>;

interface Pending {
  route: RouteName | '*';
  answer: ScriptedAnswer;
  left: number;
}

export class ScriptQueue {
  private steps: Pending[] = [];

  /** Validates and queues steps; throws a z.ZodError naming the bad step. */
  add(steps: readonly ScriptStep[]): void {
    const parsed = z.array(scriptStepSchema).parse(steps);
    for (const { route, times, ...answer } of parsed) {
      this.steps.push({ route: route === '*' ? '*' : (routeName(route) as RouteName), answer, left: times });
    }
  }

  take(route: RouteName): ScriptedAnswer | undefined {
    const index = this.steps.findIndex((s) => s.route === '*' || s.route === route);
    const step = this.steps[index];
    if (step === undefined) return undefined;
    step.left -= 1;
    if (step.left === 0) this.steps.splice(index, 1);
    return step.answer;
  }

  /** Requests still to be answered by the script. */
  get pending(): number {
    return this.steps.reduce((sum, s) => sum + s.left, 0);
  }

  clear(): void {
    this.steps = [];
  }
}
