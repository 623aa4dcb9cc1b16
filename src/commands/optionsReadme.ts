import { INBOX_OPTIONS, RUN_OPTIONS, runOptionNames } from '../options.js';
import { SANDBOX_OPTIONS } from '../sandbox/options.js';
import { flagList, optionsMarkdown } from './optionTable.js';
import { TEMPLATE_OPTIONS } from './template.js';

/**
 * What goes between `<!-- options:NAME -->` and `<!-- /options:NAME -->` in the README, written from the option
 * tables: `npm run docs` puts it there, and a test fails when the README says anything else.
 */
export const README_BLOCKS: Record<string, () => string> = {
  run: () => optionsMarkdown(RUN_OPTIONS, runOptionNames('run')),
  validate: () =>
    `\`validate\` takes only ${flagList(runOptionNames('validate').map((name) => RUN_OPTIONS[name]))} of them.`,
  inbox: () =>
    `${optionsMarkdown(INBOX_OPTIONS)}\n\nIt takes these options of \`run\` too: ${flagList(runOptionNames('inbox').map((name) => RUN_OPTIONS[name]))}.`,
  sandbox: () => optionsMarkdown(SANDBOX_OPTIONS),
  template: () => optionsMarkdown(TEMPLATE_OPTIONS),
};

const BLOCK = /<!-- options:([\w-]+) -->\n[\s\S]*?<!-- \/options:\1 -->/g;

/** The README with every options block written afresh; throws for a block missing or unknown. */
export function updateReadme(readme: string): string {
  const seen = new Set<string>();
  const updated = readme.replace(BLOCK, (_whole, name: string) => {
    const render = README_BLOCKS[name];
    if (!render) throw new Error(`README: no options table called "${name}"`);
    seen.add(name);
    return `<!-- options:${name} -->\n\n${render()}\n\n<!-- /options:${name} -->`;
  });
  const missing = Object.keys(README_BLOCKS).filter((name) => !seen.has(name));
  if (missing.length > 0)
    throw new Error(`README: no <!-- options:NAME --> ... <!-- /options:NAME --> block for ${missing.join(', ')}`);
  return updated;
}
