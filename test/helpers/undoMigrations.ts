/**
 * What takes a store back to before the team's controls (schema version 12): its tables and the sessions' user
 * column gone, on either backend. Tests that make an older store begin with it.
 */
export const UNDO_CONTROLS = [
  'DROP TABLE audit_trail',
  'DROP TABLE signin_tries',
  'DROP TABLE web_user_links',
  'DROP TABLE web_users',
  'DROP INDEX web_sessions_by_user',
  'ALTER TABLE web_sessions DROP COLUMN user_id',
];
