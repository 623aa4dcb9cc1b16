#!/usr/bin/env node
// The only place that exits the process: everything below returns an exit code.
import { main } from '../dist/bundle/bin.js';

// Nothing the bin prints or logs carries a stack trace, yet got builds an error with one for every 404 that a read
// of a new payer expects (about 60 µs of CPU each). `node --stack-trace-limit=N` still turns them on for debugging.
const asked = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
if (!asked.some((arg) => arg.startsWith('--stack-trace-limit'))) Error.stackTraceLimit = 0;

// Whatever goes wrong, the user gets one line, never a stack trace (which could carry a request's data).
// An unexpected failure may come after calls were sent, so it is "aborted" (3), not "could not start" (2).
const fail = (error) => {
  console.error(`payer-onboard: ${error?.message ?? error}`);
  process.exitCode = typeof error?.exitCode === 'number' ? error.exitCode : 3;
};
process.on('unhandledRejection', (error) => {
  fail(error);
  process.exit();
});

main(process.argv.slice(2), (code) => process.exit(code)).then((code) => {
  process.exitCode = code;
}, fail);
