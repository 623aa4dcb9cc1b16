// Transitional: run.ts imports the run-wide set under its old name until it uses RowFileSet. Delete then.
export { RowFileSet as FailedWorkbooks } from './RowFiles.js';
