#!/usr/bin/env node
// The only place that exits the process: everything below returns an exit code.
import { main } from '../dist/bin.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => { console.error(`payer-onboard: ${error?.message ?? error}`); process.exitCode = 2; },
);
