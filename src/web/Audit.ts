import { clientKey } from '../core/clientKey.js';
import type { AuditLine, ControlTables } from '../store/Store.js';

/** Who did something, and from where: a user's name and the client's address. */
export interface Actor {
  who: string;
  address: string;
}

/**
 * The audit trail as the page writes it: one line per action, written before the action is answered (a line that
 * cannot be written fails the action). Details hold ids, counts and masked values, never a personal value in full:
 * `forget` leaves nothing of a person in the trail but their id.
 */
export class Audit {
  constructor(
    private readonly tables: ControlTables,
    private readonly now: () => number = Date.now,
  ) {}

  /** The line, as it will be written. */
  line(actor: Actor, action: string, subject = '', detail: Record<string, unknown> = {}): AuditLine {
    return {
      at: new Date(this.now()).toISOString(),
      who: actor.who,
      address: actor.address,
      action,
      subject,
      detail: JSON.stringify(detail),
    };
  }

  async record(actor: Actor, action: string, subject = '', detail: Record<string, unknown> = {}): Promise<void> {
    await this.tables.audit([this.line(actor, action, subject, detail)]);
  }

  /** Several actions of one person on one subject, in order, in one transaction (none when there are none). */
  async recordAll(
    actor: Actor,
    subject: string,
    entries: ReadonlyArray<{ action: string; detail: Record<string, unknown> }>,
  ): Promise<void> {
    if (entries.length === 0) return;
    await this.tables.audit(entries.map((e) => this.line(actor, e.action, subject, e.detail)));
  }
}

/** Who a signed-in request is: its session's user, from the client's address (an IPv6 one by its /64). */
export function actorOf(request: { ip: string; session: { user: { name: string } } }): Actor {
  return { who: request.session.user.name, address: clientKey(request.ip) };
}
