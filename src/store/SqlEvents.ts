import type { Executor } from './SqlJournal.js';
import type { EventTables, StoredEvent } from './Store.js';

/** The webhooks serve received for one service and key, over either backend's executor. */
export class SqlEvents implements EventTables {
  constructor(
    private readonly sql: Executor,
    readonly service: string,
  ) {}

  async record(event: StoredEvent, sameSince: string): Promise<boolean> {
    // A new delivery, or one last received before the window: the same body inside it is the same delivery again.
    const changed = await this.sql.change(
      'INSERT INTO serve_events (service, id, received_at, event, done_at) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (service, id) DO UPDATE SET received_at = excluded.received_at, event = excluded.event, ' +
        'done_at = excluded.done_at WHERE serve_events.received_at < ?',
      [this.service, event.id, event.at, event.body, event.doneAt ?? null, sameSince],
      true,
    );
    return changed > 0;
  }

  async pending(): Promise<StoredEvent[]> {
    const rows = await this.sql.all(
      'SELECT id, received_at, event FROM serve_events WHERE service = ? AND done_at IS NULL ORDER BY received_at, id',
      [this.service],
    );
    return rows.map((row) => ({ id: String(row['id']), at: String(row['received_at']), body: String(row['event']) }));
  }

  async done(ids: readonly string[], at: string): Promise<void> {
    await this.sql.batch(
      ids.map(
        (id) =>
          [
            'UPDATE serve_events SET done_at = ? WHERE service = ? AND id = ? AND done_at IS NULL',
            [at, this.service, id],
          ] as const,
      ),
    );
  }

  async prune(before: string): Promise<void> {
    await this.sql.change('DELETE FROM serve_events WHERE service = ? AND done_at IS NOT NULL AND received_at < ?', [
      this.service,
      before,
    ]);
  }
}
