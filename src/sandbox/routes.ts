// The API's three routes and how a request finds one. Paths follow api-spec.md (and src/schema `paths`);
// clientUserId is URL-decoded, so `a%2Fb` reaches the handler as `a/b`.

export const ROUTES = {
  compliance: 'POST /v1/payer',
  'payment-details': 'POST /v2/payer/:clientUserId/payment-details',
  agreement: 'PATCH /v2/payer/:clientUserId',
} as const;
export type RouteName = keyof typeof ROUTES;
/** A route by its step name (`compliance`) or by method and template (`POST /v1/payer`). */
export type RouteRef = RouteName | (typeof ROUTES)[RouteName];

export function routeName(ref: string): RouteName | undefined {
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
  let route: RouteName | undefined;
  if (method === 'POST' && version === 'v1' && segments.length === 2) route = 'compliance';
  else if (method === 'POST' && version === 'v2' && segments.length === 4 && sub === 'payment-details') route = 'payment-details';
  else if (method === 'PATCH' && version === 'v2' && segments.length === 3) route = 'agreement';
  if (route === undefined) return { kind: 'not-found' };
  if (route === 'compliance') return { kind: 'route', route, clientUserId: '' };
  try {
    const clientUserId = decodeURIComponent(rawId ?? '');
    if (clientUserId === '') return { kind: 'not-found' };
    return { kind: 'route', route, clientUserId };
  } catch {
    return { kind: 'bad-param' };
  }
}
