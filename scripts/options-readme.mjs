// Writes the options tables of README.md from the commands' option tables (what `--help` shows too), between
// its <!-- options:NAME --> and <!-- /options:NAME --> markers. Reads the build: `npm run docs` builds first.
import { readFileSync, writeFileSync } from 'node:fs';
import { updateReadme } from '../dist/options/readmeTables.js';

const path = new URL('../README.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = updateReadme(before);
if (after === before) {
  console.log('README.md: options tables already up to date');
} else {
  writeFileSync(path, after);
  console.log('README.md: options tables rewritten');
}
