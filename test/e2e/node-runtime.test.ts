import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawnBin.js';

const root = join(import.meta.dirname, '..', '..');

// An older Node is made by the one thing the bin reads of it: process.versions.node, set before the bin loads.
const asNode = (version: string) =>
  spawnSync(
    process.execPath,
    [
      `--import=data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`,
      BIN,
      '--version',
    ],
    { encoding: 'utf8' },
  );

describe('the Node.js runtime', () => {
  it('is refused below the version the engines field claims, in one sentence that says how to get it, exit 2', () => {
    const r = asNode('20.20.2');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('payer-onboard: needs Node.js 24.21 or newer');
    expect(r.stderr).toContain('is 20.20.2');
    expect(r.stderr).toContain('npx payer-onboard');
    expect(asNode('24.20.9').status).toBe(2);
  });

  it('runs on the lowest version the engines field claims, which is the one npm ci installs and CI tests', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.engines.node).toBe(`>=${pkg.dependencies.node.replace(/\.\d+$/, '')}`);
    expect(process.versions.node).toBe(pkg.dependencies.node);
    const r = asNode(pkg.dependencies.node);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(pkg.version);
    expect(r.status).toBe(0);
  });
});
