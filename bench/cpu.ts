// `cpu`: what the client costs per request at zero latency, beside the floor under it (the same requests from a bare
// got loop and a bare node:http loop, in the same run), and a profile of it by component.
// `newman`: the same job as a team would first try it, a Postman collection run by Newman.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validatePayerRow } from '../src/validate/validatePayerRow.js';
import { COMPONENTS, type Component, ownMs, profileByComponent } from './cpuProfile.js';
import { HEADER } from './generate.js';
import { API_KEY, allOk, type Figure, input, runAgainst, withSandbox } from './scenarios.js';
import { runNode, SCRATCH } from './spawnCli.js';

const BARE_LOOP = fileURLToPath(new URL('./bareLoop.js', import.meta.url));
const ROWS = 2000;
const CONCURRENCY = 16;
/**
 * A cap far above what one core can send: the limiter counts every request (and hears when each left), but never
 * holds one back. At 2,000 it would: its timer cannot wait half a millisecond, so it lets requests through in pairs.
 */
const RATE = 100_000;
const TIMES = 3;

/** A row's request bodies as the product builds them from the generated file. */
function rowBodies(id: string): { compliance: Record<string, unknown>; paymentDetail: Record<string, unknown> } {
  const values = `${id},${id}@example.com,Ada,Lovelace,individual,1985-12-10,12 Analytical Way,Springfield,IL,62701,US,US,+12175550100,123-45-6789,First Midwest Bank,Ada Lovelace,USD,000123456789,021000021,checking`;
  const cells = HEADER.split(',').map((column, i) => ({ column, value: values.split(',')[i] }));
  const row = validatePayerRow(cells, { defaultAgreementCompleted: true });
  if (!row.ok) throw new Error(`the benchmark's own row is invalid: ${JSON.stringify(row.issues)}`);
  return { compliance: { ...row.compliance }, paymentDetail: { ...row.paymentDetails[0]! } };
}

export async function cpu(): Promise<Figure[]> {
  // Run with BENCH_BIN (an earlier build's bin), the figures are that build's: the "before" of a change.
  const scenario = process.env.BENCH_BIN === undefined ? 'cpu' : 'cpu-before';
  const bodiesFile = join(SCRATCH, 'cpu-bodies.json');
  writeFileSync(bodiesFile, JSON.stringify(rowBodies('bare-0000001')));
  const flags = { rate: RATE, concurrency: CONCURRENCY };
  const profileDir = join(SCRATCH, `cpu-profile-${Date.now()}`);
  return withSandbox({}, async (sandbox) => {
    // The median of a few runs, each of new payers: one run's figure moves by several percent on a quiet machine.
    const runs: Awaited<ReturnType<typeof runAgainst>>[] = [];
    for (let i = 0; i < TIMES; i++) runs.push(await runAgainst(sandbox, await input(ROWS, `cpu${i}`), flags));
    const perRequestOf = (r: (typeof runs)[number]) => r.figures.cpuMs / r.summary.requests.total;
    runs.sort((a, b) => perRequestOf(a) - perRequestOf(b));
    const run = runs[Math.floor(TIMES / 2)]!;
    const requests = run.summary.requests.total;
    const bare = async (mode: 'got' | 'http') => {
      const f = await runNode(
        BARE_LOOP,
        [sandbox.url, mode, String(ROWS), String(CONCURRENCY), `bare-${mode}`, bodiesFile],
        {
          PAYER_API_KEY: API_KEY,
        },
      );
      if (f.exitCode !== 0) throw new Error(`bare ${mode} loop failed: ${f.stderr.slice(-1000)}`);
      return f.cpuMs / (ROWS * 4);
    };
    const viaGot = await bare('got');
    const viaHttp = await bare('http');
    // The profile too is the median of a few runs: one run's own work moves by a tenth on a quiet machine.
    const profiles: Array<{ ms: Map<Component, number>; requests: number; own: number }> = [];
    for (let i = 0; i < TIMES; i++) {
      const dir = `${profileDir}-${i}`;
      const profiledRun = await runAgainst(sandbox, await input(ROWS, `cpuprof${i}`), flags, undefined, undefined, [
        '--cpu-prof',
        `--cpu-prof-dir=${dir}`,
      ]);
      const ms = profileByComponent(dir);
      rmSync(dir, { recursive: true, force: true });
      const profiledRequests = profiledRun.summary.requests.total;
      profiles.push({ ms, requests: profiledRequests, own: ownMs(ms) / profiledRequests });
    }
    profiles.sort((a, b) => a.own - b.own);
    const { ms, requests: profiledRequests, own } = profiles[Math.floor(TIMES / 2)]!;
    const perRequest = run.figures.cpuMs / requests;
    const profiledTotal = [...ms.values()].reduce((a, b) => a + b, 0);
    const figures: Figure[] = [
      {
        scenario,
        name: `whole process, zero latency, concurrency ${CONCURRENCY}, --rate ${RATE}, ${ROWS.toLocaleString('en-US')} rows: CPU per request`,
        value: perRequest,
        unit: 'ms/request',
        // Reported, no longer a bar: at the service's highest tier (20 requests/s) the client is idle 99% of the time.
        bar: '',
        pass: runs.every((r) => allOk(r.summary)) ? undefined : false,
        note: `median of ${TIMES} runs (${runs.map((r) => perRequestOf(r).toFixed(2)).join(', ')}); ${requests} requests, ${(run.figures.cpuMs / 1000).toFixed(1)} s CPU (start-up and the check pass included); ${(ROWS / (run.summary.durationMs / 1000)).toFixed(0)} rows/s`,
      },
      {
        scenario,
        name: 'the same requests from a bare got loop (same options, nothing else): CPU per request',
        value: viaGot,
        unit: 'ms/request',
        bar: '',
        pass: undefined,
        note: `whole process too; ${CONCURRENCY} rows in flight, each 2 + 2 requests as the product sends them`,
      },
      {
        scenario,
        name: 'the same requests from a bare node:http loop: CPU per request',
        value: viaHttp,
        unit: 'ms/request',
        bar: '',
        pass: undefined,
      },
      {
        scenario,
        name: "profile: the tool's own per-request work",
        value: own,
        unit: 'ms/request',
        bar: '',
        pass: undefined,
        note: `the rows marked * below, from the median of ${TIMES} profiled runs of the same job (${profiles.map((p) => p.own.toFixed(3)).join(', ')}; ${(profiledTotal / profiledRequests).toFixed(2)} ms/request with the profiler on)`,
      },
    ];
    for (const component of COMPONENTS) {
      figures.push({
        scenario,
        name: `profile: ${component.own ? '* ' : ''}${component.name}`,
        value: (ms.get(component.name) ?? 0) / profiledRequests,
        unit: 'ms/request',
        bar: '',
        pass: undefined,
      });
    }
    return figures;
  });
}

const NEWMAN_DIR = join(SCRATCH, 'newman');
const NEWMAN = join(NEWMAN_DIR, 'node_modules', 'newman', 'bin', 'newman.js');

/** Newman, installed on demand into the scratch folder (never a dependency: every `npm ci` would pay for it). */
function installNewman(): string | undefined {
  if (existsSync(NEWMAN)) return undefined;
  mkdirSync(NEWMAN_DIR, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const done = spawnSync(npm, ['install', '--prefix', NEWMAN_DIR, '--no-audit', '--no-fund', '--no-save', 'newman@6'], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (done.status === 0 && existsSync(NEWMAN)) return undefined;
  return `npm install newman@6 failed (${done.error?.message ?? `exit ${done.status}`}): ${(done.stderr ?? '').trim().split('\n').at(-1) ?? ''}`;
}

/** The three requests of a row, as a Postman collection reads them from its data file. */
function collection(): object {
  const headers = [
    { key: 'x-api-key', value: '{{apiKey}}' },
    { key: 'content-type', value: 'application/json' },
  ];
  const request = (name: string, method: string, path: string, raw: string) => ({
    name,
    request: { method, header: headers, body: { mode: 'raw', raw }, url: `{{baseUrl}}/${path}` },
  });
  return {
    info: {
      name: 'payer onboarding',
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    item: [
      request('create compliance', 'POST', 'v1/payer', '{{complianceBody}}'),
      request('create payment details', 'POST', 'v2/payer/{{clientUserId}}/payment-details', '{{paymentDetailBody}}'),
      request('complete agreement', 'PATCH', 'v2/payer/{{clientUserId}}', '{"agreementCompleted":true}'),
    ],
  };
}

/** The same 200-row job at 50 ms latency: payer-onboard, then a Postman collection in Newman, against one sandbox. */
export async function newman(): Promise<Figure[]> {
  const rows = 200;
  const name = `the same ${rows}-row job at 50 ms latency: payer-onboard against a Postman collection in Newman`;
  const failed = installNewman();
  if (failed !== undefined)
    return [
      { scenario: 'newman', name, value: 0, unit: 'x', bar: '>= 10', pass: undefined, note: `skipped: ${failed}` },
    ];
  const dir = join(SCRATCH, 'newman-job');
  mkdirSync(dir, { recursive: true });
  const collectionFile = join(dir, 'collection.json');
  const dataFile = join(dir, 'data.json');
  writeFileSync(collectionFile, JSON.stringify(collection(), null, 2));
  const data = Array.from({ length: rows }, (_, i) => {
    const id = `newman-${String(i + 1).padStart(7, '0')}`;
    const bodies = rowBodies(id);
    return {
      clientUserId: id,
      complianceBody: JSON.stringify(bodies.compliance),
      paymentDetailBody: JSON.stringify(bodies.paymentDetail),
    };
  });
  writeFileSync(dataFile, JSON.stringify(data));
  return withSandbox({ latencyMs: 50 }, async (sandbox) => {
    const ours = await runAgainst(sandbox, await input(rows, 'onboard'), { rate: 0 });
    const before = sandbox.stats();
    const theirs = await runNode(NEWMAN, [
      'run',
      collectionFile,
      '--iteration-data',
      dataFile,
      '--env-var',
      `baseUrl=${sandbox.url}`,
      '--env-var',
      `apiKey=${API_KEY}`,
      '--reporters',
      'cli',
      '--reporter-cli-no-summary',
      '--reporter-cli-no-banner',
      '--reporter-cli-no-console',
    ]);
    const after = sandbox.stats();
    const created = after.paymentDetailsCreated - before.paymentDetailsCreated;
    const payers = after.payersCreated - before.payersCreated;
    const ratio = theirs.wallMs / ours.figures.wallMs;
    rmSync(dir, { recursive: true, force: true });
    return [
      {
        scenario: 'newman',
        name,
        value: ratio,
        unit: 'x faster',
        bar: '>= 10',
        pass: ratio >= 10 && allOk(ours.summary) && payers === rows && created === rows,
        note: `payer-onboard ${(ours.figures.wallMs / 1000).toFixed(1)} s (defaults, --rate 0; ${ours.summary.requests.total} requests); Newman ${(theirs.wallMs / 1000).toFixed(1)} s (${payers} payers and ${created} bank accounts created, exit ${theirs.exitCode}); both whole processes`,
      },
    ];
  });
}
