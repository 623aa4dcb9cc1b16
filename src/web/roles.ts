import { ROLES, type Role } from '../store/Store.js';

/**
 * Who may do what on the team's page, in one table: each route behind sign-in and the least role that may use it.
 * Each role includes the ones before it: a viewer reads the Payers and the reports; a preparer uploads, maps and
 * fixes; an approver sends and hands out or revokes payers' links; an admin manages users, settings and the audit
 * trail. A route missing here is the admin's alone: nothing is open by being forgotten.
 */
const ROUTE_ROLES: Readonly<Record<string, Role>> = {
  'GET /': 'preparer',
  'POST /uploads': 'preparer',
  'GET /uploads/:id': 'preparer',
  'POST /uploads/:id/mapping': 'preparer',
  'POST /uploads/:id/rows': 'preparer',
  // The approver's page shows the rows' bank details in full.
  'GET /uploads/:id/review': 'approver',
  'POST /uploads/:id/approve': 'approver',
  'POST /uploads/:id/send': 'approver',
  'GET /sent/:id': 'viewer',
  'GET /sent/:id/fragment': 'viewer',
  'GET /sent/:id/live': 'viewer',
  // The failed file holds the rows as uploaded, bank details included: the preparer's, to fix and send again.
  'GET /sent/:id/files/:name': 'preparer',
  'GET /payers': 'viewer',
  'POST /payers': 'viewer',
  'GET /payers/:id': 'viewer',
  'GET /payers/fragment': 'viewer',
  'POST /payers/fragment': 'viewer',
  'GET /payers.csv': 'viewer',
  'POST /payers.csv': 'viewer',
  'GET /payers/live': 'viewer',
  'POST /payers/refresh': 'viewer',
  'POST /payers/:id/links/new': 'approver',
  'POST /payers/:id/links/revoke': 'approver',
};

/** The least role a route needs (`GET /uploads/:id`, as Fastify names it). */
export function roleFor(method: string, url: string | undefined): Role {
  const key = `${method === 'HEAD' ? 'GET' : method} ${url ?? ''}`;
  return ROUTE_ROLES[key] ?? 'admin';
}

/** Whether a role includes another. */
export function allows(has: Role, needs: Role): boolean {
  return ROLES.indexOf(has) >= ROLES.indexOf(needs);
}

/** Whether a text is a role's name. */
export function isRole(text: unknown): text is Role {
  return typeof text === 'string' && (ROLES as readonly string[]).includes(text);
}
