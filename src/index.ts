// The library entry: run() and the sandbox for callers and tests that do not go through the CLI.
export { run, type RunContext, type RunInput } from './run.js';
export { resolveRunOptions, type RunOptions } from './options.js';
export { RUN_OPTIONS } from './runOptionTable.js';
export type { Summary } from './output/results.js';
export { startSandbox } from './sandbox/index.js';
export * from './errors.js';
export * from './types.js';
export * as schema from './schema/index.js';
