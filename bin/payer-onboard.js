#!/usr/bin/env node
// The only place that exits the process: everything below returns an exit code.
import { main } from '../dist/bundle/bin.js';

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

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, fail);
