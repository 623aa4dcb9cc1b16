import type { AuditLine, ControlTables, JournalTables } from '../store/Store.js';
import { allows } from './roles.js';
import type { Approval, Upload } from './Uploads.js';
import type { Fix, Person } from './uploadTable.js';
import { SHARED_NAME, type Viewer } from './WebAuth.js';

/** The journal's setting an admin turns four eyes on or off with; absent, it goes by the team. */
export const FOUR_EYES_SETTING = 'web four eyes';

/** Where four eyes stands: on or off, whether an admin said so, and how many approvers can sign in. */
export interface FourEyesStand {
  on: boolean;
  set?: 'on' | 'off';
  approvers: number;
}

/**
 * Whether an upload may be sent, and by whom: what makes a second person's approval needed (four eyes, or rows that
 * give a payer the journal knows with a bank account another one, whatever the setting), the approval given and
 * whether it still holds, what the person looking may do, and the approvers who may approve it.
 */
export interface SendGate {
  stand: FourEyesStand;
  /**
   * Rows with a new bank account for a known payer; unknown where its check's accounts could not be read (its folder
   * cleared meanwhile): a second person approves it then, as for a new account.
   */
  newAccounts: number | 'unknown';
  needed: boolean;
  approval?: Approval & { holds: boolean; changedBy: string[] };
  /**
   * `send`: no approval is needed, or one holds; `approve`: the person may approve it and send it; `involved`: an
   * approver who uploaded or changed it; `role`: not an approver.
   */
  may: 'send' | 'approve' | 'involved' | 'role';
  /** The approvers who neither uploaded nor changed it: who may approve it. */
  others: string[];
  /** Every approver, by name. */
  approvers: string[];
}

/**
 * Four eyes on the team's page: on by default when the team has two approvers or more (admins are approvers, and the
 * shared password, while it signs in, is one), or as an admin set it. When it is on, an upload is sent only once an
 * approver who neither uploaded it nor changed anything in it approved exactly what is sent.
 */
export class FourEyes {
  constructor(
    private readonly settings: Pick<JournalTables, 'setting' | 'write'>,
    private readonly controls: Pick<ControlTables, 'users'>,
    /** Whether the shared password still signs in (the team has no named user yet). */
    private readonly sharedOpen: () => Promise<boolean>,
  ) {}

  /** Who may approve: the approvers and admins who can sign in, or the shared password's single admin. */
  async approvers(): Promise<Person[]> {
    const users = await this.controls.users();
    if (users.length === 0) return (await this.sharedOpen()) ? [{ name: SHARED_NAME }] : [];
    return users
      .filter((user) => user.disabledAt === undefined && allows(user.role, 'approver'))
      .map((user) => ({ name: user.name, id: user.id }));
  }

  async stand(approvers?: readonly Person[]): Promise<FourEyesStand> {
    const value = await this.settings.setting(FOUR_EYES_SETTING);
    const count = (approvers ?? (await this.approvers())).length;
    const set = value === 'on' || value === 'off' ? value : undefined;
    return {
      on: set === undefined ? count >= 2 : set === 'on',
      ...(set === undefined ? {} : { set }),
      approvers: count,
    };
  }

  /** The setting changed (undefined: as the team is), with its audit line, in one transaction. */
  async set(value: 'on' | 'off' | undefined, line: AuditLine): Promise<void> {
    await this.settings.write([{ setting: FOUR_EYES_SETTING, value }, { audit: line }]);
  }

  /** Whether the upload, whose content has this hash now, may be sent, and what the person looking may do. */
  async gate(upload: Upload, fixes: readonly Fix[], hash: string, viewer: Viewer): Promise<SendGate> {
    const approvers = await this.approvers();
    const stand = await this.stand(approvers);
    const involved = involvedIn(upload, fixes);
    const newAccounts = upload.newAccounts === undefined ? 'unknown' : upload.newAccounts.total;
    const needed = stand.on || newAccounts !== 0;
    const holds = upload.approval !== undefined && upload.approval.hash === hash;
    const approver = allows(viewer.role, 'approver');
    const may = !approver
      ? 'role'
      : !needed || holds
        ? 'send'
        : involved.has(keyOf({ name: viewer.name, ...(viewer.userId ? { id: viewer.userId } : {}) }))
          ? 'involved'
          : 'approve';
    return {
      ...{ stand, newAccounts, needed, may },
      ...(upload.approval === undefined
        ? {}
        : { approval: { ...upload.approval, holds, changedBy: holds ? [] : changedSince(upload, fixes) } }),
      others: approvers.filter((a) => !involved.has(keyOf(a))).map((a) => a.name),
      approvers: approvers.map((a) => a.name),
    };
  }
}

/** A person as compared: a named user by their id, the shared password by its name. */
function keyOf(person: Person): string {
  return person.id ?? `name:${person.name.toLowerCase()}`;
}

/** Who uploaded the upload or changed anything in it. */
function involvedIn(upload: Upload, fixes: readonly Fix[]): Set<string> {
  const people = [upload.by, ...(upload.mapped ?? []).map((m) => m.by), ...fixes.map((f) => f.by)];
  return new Set(people.flatMap((p) => (p === undefined ? [] : [keyOf(p)])));
}

/** Who changed the upload after its approval, by name. */
function changedSince(upload: Upload, fixes: readonly Fix[]): string[] {
  const since = upload.approval?.at ?? '';
  const changes = [...(upload.mapped ?? []), ...fixes].filter((c) => c.at > since);
  return [...new Set(changes.map((c) => c.by?.name ?? 'someone'))];
}

/** What the footer of every signed-in page says of four eyes. */
export function fourEyesWords(stand: FourEyesStand): string {
  const accounts = 'a new bank account for a payer who has one still needs a second person';
  if (stand.on && stand.approvers >= 2)
    return 'Four eyes: on — every upload is approved by a second person before it is sent';
  if (stand.on)
    return `Four eyes: on — every upload is approved by a second person before it is sent; ${
      stand.approvers === 0
        ? 'the team has no approver, so nothing is sent'
        : 'with one approver, only what others uploaded and changed is sent'
    }`;
  if (stand.set === 'off') return `Four eyes: off (an admin turned it off) — an approver sends alone; ${accounts}`;
  return `Four eyes: off — the team has ${stand.approvers === 0 ? 'no approver' : 'one approver'} (it is on with two); ${accounts}`;
}
