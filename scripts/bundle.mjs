// Bundles the bin (dist/bin.js and all it imports, tsc's output) into dist/bundle/, what bin/payer-onboard.js loads.
// Node 20 has no compile cache, and loading some 330 module files one by one (zod, got, yargs and their
// dependencies) cost about 0.25 s of CPU on every command; a few files instead save 40% of a 1-row run's start-up.
// `--splitting` keeps each command's lazy imports lazy: `--help` loads no check library, `validate` no HTTP client.
// The library entry (dist/index.js) and the tests use tsc's files as they are.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const outdir = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
rmSync(outdir, { recursive: true, force: true });
await build({
  // The bin, and the process serve reads and checks an uploaded file in (src/web/UploadReader.ts), which shares its
  // chunks: named here, each lands at the top of dist/bundle/.
  entryPoints: {
    bin: fileURLToPath(new URL('../dist/bin.js', import.meta.url)),
    checkChild: fileURLToPath(new URL('../dist/web/checkChild.js', import.meta.url)),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  // exceljs stays in node_modules: only xlsx output loads it, and Node keeps quiet about the deprecated Buffer() of
  // its archiver only there. libphonenumber-js is loaded with createRequire where first needed, from there too.
  // fastify and prom-client load only for `serve`, and load their own files as they were published.
  external: ['exceljs', 'fastify', 'prom-client'],
  // CommonJS dependencies (exceljs, yauzl) call `require` for Node's modules: an ES module has none of its own.
  banner: {
    js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
  },
  // Read by no one at run time (Node leaves source maps alone unless --enable-source-maps): the benchmark's profile
  // goes by them to charge each function to the module it came from.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
