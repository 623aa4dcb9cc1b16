#!/usr/bin/env -S node --experimental-websocket
// Opens a report.html in Debian's headless chromium over the DevTools protocol and prints, as one JSON object,
// what a reader would see and what the page did: console errors, uncaught exceptions, CSP and other browser
// log errors, and every network request other than the file itself. With a second argument it saves a
// full-page PNG screenshot. No npm dependency: Node 20's WebSocket (behind --experimental-websocket) is enough.
//
//   node --experimental-websocket scripts/check-report.mjs <report.html> [screenshot.png]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const [reportArg, screenshotArg] = process.argv.slice(2);
if (!reportArg) {
  console.error('usage: node --experimental-websocket scripts/check-report.mjs <report.html> [screenshot.png]');
  process.exit(2);
}
if (typeof WebSocket === 'undefined') {
  console.error('check-report: no global WebSocket: run with node --experimental-websocket (Node 20.10+)');
  process.exit(2);
}
const reportUrl = pathToFileURL(resolve(reportArg)).href;
const profile = mkdtempSync(join(tmpdir(), 'check-report-'));
const browser = spawn(
  CHROMIUM,
  [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--no-first-run',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--hide-scrollbars',
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    'about:blank',
  ],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);

const fail = (message) => {
  console.error(`check-report: ${message}`);
  browser.kill('SIGKILL');
  rmSync(profile, { recursive: true, force: true });
  process.exit(1);
};
const watchdog = setTimeout(() => fail('timed out after 45 s'), 45_000);

// Chromium prints "DevTools listening on ws://..." on stderr once the protocol is up.
const wsUrl = await new Promise((resolveUrl, reject) => {
  let text = '';
  browser.stderr.on('data', (d) => {
    text += d;
    const m = /DevTools listening on (ws:\/\/\S+)/.exec(text);
    if (m) resolveUrl(m[1]);
  });
  browser.on('exit', (code) =>
    reject(new Error(`chromium exited (${code}) before DevTools was up: ${text.slice(-500)}`)),
  );
}).catch((e) => fail(e.message));

const ws = new WebSocket(wsUrl);
await new Promise((r, j) => {
  ws.onopen = r;
  ws.onerror = () => j(new Error('cannot connect to DevTools'));
}).catch((e) => fail(e.message));
let nextId = 1;
const pending = new Map();
const listeners = [];
ws.onmessage = (event) => {
  const msg = JSON.parse(String(event.data));
  if (msg.id !== undefined && pending.has(msg.id)) {
    const { resolve: ok, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    msg.error ? reject(new Error(`${msg.error.message}`)) : ok(msg.result);
  } else if (msg.method) {
    for (const l of listeners) l(msg);
  }
};
const send = (method, params = {}, sessionId) =>
  new Promise((ok, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: ok, reject });
    ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });

const found = { consoleErrors: [], exceptions: [], logErrors: [], requests: [] };
listeners.push(({ method, params }) => {
  if (
    method === 'Runtime.consoleAPICalled' &&
    (params.type === 'error' || params.type === 'warning' || params.type === 'assert')
  ) {
    found.consoleErrors.push(params.args.map((a) => a.value ?? a.description ?? '').join(' '));
  }
  if (method === 'Runtime.exceptionThrown')
    found.exceptions.push(params.exceptionDetails.exception?.description ?? params.exceptionDetails.text);
  if (method === 'Log.entryAdded' && (params.entry.level === 'error' || params.entry.level === 'warning'))
    found.logErrors.push(params.entry.text);
  if (method === 'Network.requestWillBeSent' && params.request.url !== reportUrl)
    found.requests.push(params.request.url);
});

const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
const s = (method, params) => send(method, params, sessionId);
await Promise.all([s('Runtime.enable'), s('Log.enable'), s('Network.enable'), s('Page.enable')]);
await s('Emulation.setDeviceMetricsOverride', { width: 1200, height: 900, deviceScaleFactor: 1, mobile: false });
const loaded = new Promise((r) =>
  listeners.push(({ method, sessionId: sid }) => {
    if (method === 'Page.loadEventFired' && sid === sessionId) r();
  }),
);
await s('Page.navigate', { url: reportUrl });
await loaded;

const evaluate = async (expression) => (await s('Runtime.evaluate', { expression, returnByValue: true })).result.value;
const dom = await evaluate(`(() => {
  const count = (k) => { const el = document.querySelector('[data-count="' + k + '"]'); return el ? Number(el.textContent) : null; };
  const rows = [...document.querySelectorAll('#notok tbody tr, #table tbody tr')];
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  return {
    title: document.title,
    counts: Object.fromEntries([...document.querySelectorAll('[data-count]')].map((el) => [el.getAttribute('data-count'), count(el.getAttribute('data-count'))])),
    charts: [...document.querySelectorAll('svg')].map((svg) => ({ label: svg.getAttribute('aria-label'), shapes: svg.querySelectorAll('rect').length, visible: visible(svg) })),
    tableRows: rows.length,
    tableVisible: rows.length > 0 && visible(rows[0]),
    firstRow: rows.length ? [...rows[0].cells].map((c) => c.textContent) : null,
    // A run's "What to do next": the lines of rows to fix, the command to run again, the links to send.
    groups: [...document.querySelectorAll('[data-group]')].map((li) => li.textContent),
    rerun: document.querySelector('[data-rerun]')?.textContent ?? null,
    links: document.querySelectorAll('#links tbody tr').length,
  };
})()`);
// Exercise the filter as a reader would: type the first row's clientUserId (or its line) and count what stays.
const filter = await evaluate(`(() => {
  const q = document.getElementById('q');
  if (!q) return null;
  const rows = [...document.querySelectorAll('#notok tbody tr, #table tbody tr')];
  const heads = [...document.querySelectorAll('#notok thead th, #table thead th')].map((th) => th.textContent);
  const at = (name) => heads.indexOf(name);
  const cell = (row, name) => (at(name) >= 0 ? row.cells[at(name)].textContent : '');
  const term = rows[0] ? cell(rows[0], 'clientUserId') || cell(rows[0], 'line') || rows[0].cells[0].textContent : 'x';
  q.value = term; q.dispatchEvent(new Event('input'));
  const shown = rows.filter((r) => !r.hidden).length;
  const expected = rows.filter((r) => r.textContent.toLowerCase().includes(term.toLowerCase())).length;
  const label = Number(document.getElementById('shown').textContent);
  q.value = ''; q.dispatchEvent(new Event('input'));
  return { term, shown, expected, label, restored: rows.filter((r) => !r.hidden).length };
})()`);

if (screenshotArg) {
  const { cssContentSize } = await s('Page.getLayoutMetrics');
  const height = Math.min(4000, Math.ceil(cssContentSize.height));
  const shot = await s('Page.captureScreenshot', {
    format: 'png',
    captureBeyondViewport: true,
    clip: { x: 0, y: 0, width: 1200, height, scale: 1 },
  });
  writeFileSync(resolve(screenshotArg), Buffer.from(shot.data, 'base64'));
}
// Late console errors or requests (a timer, a lazy image) would land in this short wait.
await new Promise((r) => setTimeout(r, 300));
// Let chromium exit by itself before removing its profile (it writes there until it is gone).
const exited = new Promise((r) => browser.once('exit', r));
await send('Browser.close').catch(() => {});
await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
if (browser.exitCode === null) {
  browser.kill('SIGKILL');
  await exited;
}
clearTimeout(watchdog);
ws.close();
rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
console.log(
  JSON.stringify({
    url: reportUrl,
    ...found,
    dom,
    filter,
    screenshot: screenshotArg ? resolve(screenshotArg) : undefined,
  }),
);
