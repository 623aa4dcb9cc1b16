import { z } from 'zod';
import { ROUTE_NAMES, routeName, type RouteName, type RouteRef } from './routes.js';

// Scripted answers make client tests deterministic without relying on fault rates: "the next
// create-compliance gets 500, the one after is handled normally", "429 with Retry-After: 2".
// A step is used by the next authorised request of its route (or of any route for '*'), in the
// order the steps were given; steps of other routes wait for theirs.

export const SCRIPT_FAULTS = ['reset', 'slow', 'commit500'] as const;

export const scriptStepSchema = z
  .object({
    /** A route name (`compliance`, `read-payer`, ...) or method and template (`GET /v2/payer/:clientUserId`); `*` (default) is any route. */
    route: z
      .string()
      .refine((r) => r === '*' || routeName(r) !== undefined, {
        message: `must be *, ${ROUTE_NAMES.join(', ')} or a route like "POST /v1/payer"`,
      })
      .default('*'),
    /** Answer this status without running the handler (for `commit500`: the status after the change, default 500). */
    status: z.number().int().min(200).max(599).optional(),
    /** Body for `status`: an object is sent as JSON, a string as text/plain. Default: a NestJS error body. */
    body: z.unknown().optional(),
    /** `Retry-After` header value for `status` (seconds or an HTTP date). None unless given. */
    retryAfter: z.union([z.number().int().min(0), z.string().min(1)]).optional(),
    /** reset: close the socket unanswered; slow: handle, then answer after `delayMs`; commit500: handle, then answer `status` (500). */
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
