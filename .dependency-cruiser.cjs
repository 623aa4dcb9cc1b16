// The layers of src/, lowest first, as docs/architecture.md draws them: a folder may import its own files and the
// folders below it, never one above, and nothing in a folder imports the entry files at the root of src/ (bin.ts,
// cli.ts, index.ts), which may import anything. `npm run lint` runs this check.
const LAYERS = [
  'core',
  'rows',
  'input',
  'validate',
  'options',
  'sandbox',
  'store',
  'mail',
  'plan',
  'journal',
  'execute',
  'output',
  'report',
  'pipeline',
  'status',
  'inbox',
  'web',
  'serve',
  'commands',
];

const folder = (names) => `^src/(${names.join('|')})/`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `${layer}-imports-no-later-layer`,
  comment: `${layer} is below ${LAYERS.slice(i + 1).join(', ')}: it may not import them`,
  severity: 'error',
  from: { path: folder([layer]) },
  to: { path: folder(LAYERS.slice(i + 1)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a cycle of imports: one of its files belongs in another place',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'every-folder-is-a-layer',
      comment:
        'a folder of src/ that the layers do not name: add it to LAYERS in .dependency-cruiser.cjs and to docs/architecture.md',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: folder(LAYERS) },
      to: {},
    },
    {
      name: 'no-import-of-the-entry-files',
      comment: 'the entry files at the root of src/ sit above every layer',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
