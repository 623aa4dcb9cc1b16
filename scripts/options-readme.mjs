// Writes the options tables of the docs (README.md and the guides in docs/) from the commands' option tables (what
// `--help` shows too), between their <!-- options:NAME --> and <!-- /options:NAME --> markers, each where it is.
// Reads the build: `npm run docs` builds first.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { updateDocs } from '../dist/options/readmeTables.js';

const root = new URL('../', import.meta.url);
const paths = [
  new URL('README.md', root),
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => new URL(`docs/${name}`, root)),
];
const before = paths.map((path) => readFileSync(path, 'utf8'));
const after = updateDocs(before);
let changed = 0;
after.forEach((text, i) => {
  if (text === before[i]) return;
  writeFileSync(paths[i], text);
  changed++;
});
console.log(
  changed === 0 ? 'docs: options tables already up to date' : `docs: options tables rewritten in ${changed} file(s)`,
);
