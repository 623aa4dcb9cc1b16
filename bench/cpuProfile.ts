// Splits a V8 CPU profile (`node --cpu-prof`) of one run into the components a reader can act on: the HTTP client
// (got, and Node's http beneath it), the tool's own work per request (its client wrapper, the limiter, the journal,
// the row's plan, logging, progress, results), reading and validating the input, start-up and the garbage collector.
// Each sample goes to the component of the function it was in; built-ins, hashing, zod and Node's own modules
// (fs, events, streams, timers, url) go to their caller: the journal's write(2) is the journal's, an event got
// emits is got's. A Node frame with nothing but Node above it (a callback straight from the event loop) stays
// "Node internals". The compact tables are containers and go to their caller too (the journal's index is the
// journal's); a row's check in either pass (classifyRows, scanInputs: its cells, a repeated clientUserId) is validation.
// The bin runs from a bundle (dist/bundle/): a function there is charged by its bundle's source map to the module it
// came from, as if that module had been loaded on its own (src/x.ts as dist/x.js, a dependency by its own path).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The components, in the order they are shown; `own` marks the tool's own per-request work. */
export const COMPONENTS = [
  { name: 'HTTP client: got', own: false },
  { name: "HTTP client: Node's http, sockets", own: false },
  { name: 'HTTP client: the tool around got (retries, reading answers)', own: true },
  { name: 'limiter (rate cap, concurrency, adaptation)', own: true },
  { name: 'journal', own: true },
  { name: "the row's plan and the pipeline (hashes included)", own: true },
  { name: 'logging', own: true },
  { name: 'progress', own: true },
  { name: 'results and row files (CSV out)', own: true },
  { name: 'validating the rows', own: false },
  { name: 'CSV in (both passes)', own: false },
  { name: 'start-up (loading modules)', own: false },
  { name: 'Node internals (events, streams, timers, promises)', own: false },
  { name: 'garbage collector', own: false },
  { name: 'other (V8, Node internals)', own: false },
] as const;

export type Component = (typeof COMPONENTS)[number]['name'];

const GOT_FAMILY =
  /node_modules\/(got|@sindresorhus\/is|@szmarczak|p-cancelable|cacheable-request|cacheable-lookup|http2-wrapper|responselike|decompress-response|form-data-encoder|lowercase-keys|mimic-response|normalize-url|keyv|defer-to-connect|get-stream|type-fest)\//;

/**
 * The component a frame's own time belongs to, or undefined for a frame charged to its caller: V8's built-ins
 * (JSON, natives), hashing, the libraries the tool calls for one job (zod for the input and for answers), and
 * Node's modules other than http and sockets.
 */
function decides(url: string, functionName: string): Component | undefined {
  if (url.startsWith('node:internal/modules') || functionName === 'compileSourceTextModule')
    return 'start-up (loading modules)';
  if (
    url === '' ||
    /^node:(crypto|internal\/crypto)/.test(url) ||
    /node_modules\/(zod|libphonenumber-js|i18n-iso-countries|currency-codes|ibantools)\//.test(url)
  )
    return undefined;
  if (GOT_FAMILY.test(url)) return 'HTTP client: got';
  if (/^node:(_http_|net$|internal\/stream_base_commons|internal\/http|internal\/dns)/.test(url))
    return "HTTP client: Node's http, sockets";
  if (url.startsWith('node:')) return undefined;
  if (/node_modules\/(pino|sonic-boom|thread-stream|on-exit-leak-free|fast-redact|quick-format)/.test(url))
    return 'logging';
  if (/node_modules\/(p-limit|yocto-queue)\//.test(url)) return 'limiter (rate cap, concurrency, adaptation)';
  if (/node_modules\/csv-stringify\//.test(url)) return 'results and row files (CSV out)';
  if (/node_modules\/(csv-parse|iconv-lite|chardet|jschardet)\//.test(url)) return 'CSV in (both passes)';
  const src = url.match(/\/dist\/(.+)$/)?.[1];
  if (src === undefined) return 'other (V8, Node internals)';
  // Compact tables are containers, like a Map: the journal's index is the journal's, the ids seen are the check's.
  if (src.startsWith('compact/')) return undefined;
  // A row's check in either pass (its cells validated, its clientUserId not seen before) is validation, not the plan.
  if (src === 'pipeline/classifyRows.js' || src === 'pipeline/scanInputs.js') return 'validating the rows';
  if (/^execute\/(RateLimiter|AdaptiveRate|RateAdaptation|TrafficRecord)/.test(src))
    return 'limiter (rate cap, concurrency, adaptation)';
  if (/^execute\/(createApiClient|ApiCalls|httpClient|endpoints|retryPolicy|ApiClient)/.test(src))
    return 'HTTP client: the tool around got (retries, reading answers)';
  if (src.startsWith('journal/')) return 'journal';
  if (src.startsWith('validate/') || src.startsWith('rows/')) return 'validating the rows';
  if (src.startsWith('input/')) return 'CSV in (both passes)';
  if (src === 'output/Progress.js') return 'progress';
  if (src.startsWith('output/') || src.startsWith('report/')) return 'results and row files (CSV out)';
  if (src === 'log.js' || src.startsWith('log/')) return 'logging';
  return "the row's plan and the pipeline (hashes included)";
}

/** Milliseconds of CPU by component (idle time left out), read from the `.cpuprofile` file `dir` holds. */
export function profileByComponent(dir: string): Map<Component, number> {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no .cpuprofile in ${dir}`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const memo = new Map<number, Component | null>();
  const componentOf = (id: number): Component | undefined => {
    const known = memo.get(id);
    if (known !== undefined) return known ?? undefined;
    const node = byId.get(id)!;
    const { functionName } = node.callFrame;
    const url = moduleOf(node.callFrame);
    let found: Component | undefined;
    if (functionName === '(garbage collector)') found = 'garbage collector';
    else if (functionName === '(idle)') found = undefined;
    else {
      found = decides(url, functionName);
      const up = parent.get(id);
      if (found === undefined && up !== undefined) found = componentOf(up);
      if (found === undefined && url.startsWith('node:')) found = 'Node internals (events, streams, timers, promises)';
    }
    memo.set(id, found ?? null);
    return found;
  };
  const ms = new Map<Component, number>(COMPONENTS.map((c) => [c.name, 0]));
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    const component = componentOf(id) ?? 'other (V8, Node internals)';
    ms.set(component, ms.get(component)! + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  return ms;
}

const maps = new Map<string, SourceMap | undefined>();
/** Named like Node's module loader, whose work it does, so it is charged to start-up with it. */
const BUNDLE_GLUE = 'node:internal/modules/bundle';

/** The URL of the module a frame's function was written in: its own, or for a bundled one, its source map's. */
function moduleOf({ url, lineNumber, columnNumber }: ProfileNode['callFrame']): string {
  if (!url.startsWith('file:') || !url.includes('/dist/bundle/')) return url;
  const file = fileURLToPath(url);
  if (!maps.has(file)) {
    const mapFile = `${file}.map`;
    maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
  }
  const entry = maps.get(file)?.findEntry(lineNumber, columnNumber) as { originalSource?: string } | undefined;
  // What no module wrote is the bundler's glue: each module's top-level code and the wrappers that load it.
  if (entry?.originalSource === undefined) return BUNDLE_GLUE;
  const source = resolve(dirname(file), entry.originalSource.replace(/^file:\/\//, ''));
  // The tool's own modules are named by their built file, as the rules above know them.
  const own = source.match(/^(.*)\/src\/(.+)\.ts$/);
  return pathToFileURL(own ? `${own[1]}/dist/${own[2]}.js` : source).href;
}

/** The tool's own per-request work: the components marked `own`. */
export function ownMs(ms: Map<Component, number>): number {
  return COMPONENTS.filter((c) => c.own).reduce((sum, c) => sum + (ms.get(c.name) ?? 0), 0);
}
