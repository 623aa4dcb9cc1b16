#!/usr/bin/env -S node --max-semi-space-size=4 --max-old-space-size=1536
// The only place that exits the process: everything below returns an exit code.
//
// --max-semi-space-size=4 (MB): a run makes a great deal of short-lived garbage per row, and Node 24's V8 lets its
// young generation grow to far more than the rows need before it collects: a 100,000-row run, or serve after one,
// then holds 100-150 MB more than the same work under this cap. --max-old-space-size=1536 (MB): below 2 GB, V8 lets
// its old generation grow to about 1.6 times what is alive before it collects, rather than 4 times (measured: a
// 100,000-row run peaks at 197 MB instead of 278; what is alive stays near 30-60 MB, far under the ceiling). The flags
// can only be given when the process starts (V8 sizes its heap then): here for `npx payer-onboard` and the bin run
// directly, and in the README's systemd units.

// The runtime first, before anything loads: the store needs Node 24's built-in SQLite, and an older Node would fail
// somewhere deep with its own words. `npm ci` installs Node 24 into node_modules/.bin, which npm's scripts and npx
// put first on PATH, so a machine whose own Node is older still runs the right one through them.
const NEEDED = [24, 21];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < NEEDED[0] || (major === NEEDED[0] && minor < NEEDED[1])) {
  console.error(
    `payer-onboard: needs Node.js ${NEEDED.join('.')} or newer, and ${process.execPath} is ${process.versions.node}: ` +
      'run it as `npx payer-onboard` from the repo (npm ci installs Node 24 there, in node_modules/.bin/node), ' +
      'or with that node, or install Node.js 24 LTS.',
  );
  process.exit(2);
}
const { main } = await import('../dist/bundle/bin.js');

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
