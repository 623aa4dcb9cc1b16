import { createHash } from 'node:crypto';
import { html, type SafeHtml, toText } from '../core/html.js';
import type { AgreementStep, BankStep, KycStep, PayerSteps } from './payerPageState.js';

// The payer's own page: a greeting by first name, then only what is still needed, one section a step, each with its
// state in words. The page holds no personal value but that name: no last name, e-mail, id or bank number. Its
// sections are swapped one by one as the payer's state changes (a section whose key is the same stays, so the
// agreement's frame is never reloaded under the payer's eyes).

/** One step of the page as the script swaps it: its element id, a key of its markup, and the markup. */
export interface PageSection {
  id: string;
  key: string;
  html: string;
}

/** What the page's script needs: where it posts the signature, follows changes, asks about the frame; its form token. */
export interface PageWiring {
  csrf: string;
  /** The origins the agreement's message is taken from (the frame's own among them). */
  origins: readonly string[];
}

const BASE = '/p';

export function payerPage(steps: PayerSteps, wiring: PageWiring): string {
  const hello = steps.name === '' ? 'Hello' : `Hello ${steps.name}`;
  const lead = steps.done
    ? ''
    : html`<p class="lead">Here is what is still needed from you to be paid. This page changes by itself as each step is done.</p>`;
  const body = html`<h1>${hello}</h1>
${lead}
<div id="steps" data-live="${BASE}/live" data-sign="${BASE}/agreement" data-frame-check="${BASE}/frame" data-csrf="${wiring.csrf}" data-origins="${wiring.origins.join(' ')}">
${stepParts(steps).map((s) => s.part)}
</div>
<p id="live-note" class="visually-hidden" role="status" aria-live="polite"></p>`;
  return payerLayout(hello, body, true);
}

/** The sections of the page as the script swaps them, in their order. */
export function stepSections(steps: PayerSteps): PageSection[] {
  return stepParts(steps).map(({ id, key, part }) => ({ id, key, html: toText(part) }));
}

interface Part {
  id: string;
  key: string;
  part: SafeHtml;
}

/** The steps still to show, or the one section that says nothing is left. */
function stepParts(steps: PayerSteps): Part[] {
  if (steps.done) return [section('done', 'done', '', html`<p class="ok">Nothing more to do. Thank you.</p>`)];
  const parts = [agreementSection(steps.agreement, steps.agreementUrl), kycSection(steps.kyc, steps.kycUrl)];
  if (steps.bank !== 'none') parts.push(bankSection(steps.bank));
  return parts;
}

/** A step's section; its key is a digest of what it shows, so the script swaps it only when that changed. */
function section(id: string, state: string, title: string, body: SafeHtml): Part {
  const key = createHash('sha256')
    .update(`${state}\n${title}\n${toText(body)}`)
    .digest('hex')
    .slice(0, 16);
  const heading = title === '' ? '' : html`<h2 id="${id}-title">${title}</h2>`;
  const labelled = title === '' ? '' : html` aria-labelledby="${id}-title"`;
  const part = html`<section id="${id}" class="step card" data-state="${state}" data-key="${key}"${labelled}>
${heading}
${body}
</section>`;
  return { id, key, part };
}

const NOT_READY = 'It appears here once the payments service has your details. This page changes by itself.';

function agreementSection(step: AgreementStep, url: string | undefined): Part {
  const title = 'Sign the agreement';
  const said: Record<Exclude<AgreementStep, 'sign'>, SafeHtml> = {
    done: html`<p class="state ok">Done: you signed it.</p>`,
    recording: html`<p class="state ok">Signed, thank you. It is being recorded with the payments service.</p>`,
    problem: html`<p class="state problem">There is a problem with the agreement: the team will contact you.</p>`,
    'not-ready': html`<p class="state">Not ready yet. ${NOT_READY}</p>`,
  };
  if (step !== 'sign' || url === undefined) return section('step-agreement', step, title, said[step as 'not-ready']);
  return section(
    'step-agreement',
    step,
    title,
    html`<p class="state" data-frame-hide>To do: read the agreement of the payments service below, and agree to it at its end.</p>
<div class="agreement-frame" data-frame-hide><iframe src="${url}" title="The agreement of the payments service" data-agreement-frame></iframe></div>
<p class="state note" data-frame-refused hidden>The agreement cannot be shown on this page. Nothing is wrong on your side: the team will collect your signature another way.</p>`,
  );
}

function kycSection(step: KycStep, url: string | undefined): Part {
  const title = 'Verify your identity';
  const link = (words: string) =>
    url === undefined
      ? ''
      : html`<p><a class="button" href="${url}" target="_blank" rel="noopener noreferrer">${words}<span class="visually-hidden"> (opens in a new tab)</span></a></p>`;
  const said: Record<KycStep, SafeHtml> = {
    'not-started': html`<p class="state">To do: the payments service checks who you are, in a tab of its own.</p>${link('Verify your identity')}`,
    pending: html`<p class="state">Under way: the payments service is checking it. If you stopped before the end, go on where you left off.</p>${link('Go on with the check')}`,
    retry: html`<p class="state">The payments service asks you to go through the check once more.</p>${link('Verify your identity again')}`,
    approved: html`<p class="state ok">Done: your identity is verified.</p>`,
    rejected: html`<p class="state problem">Your identity could not be verified: the team will contact you.</p>`,
    'not-ready': html`<p class="state">Not ready yet. ${NOT_READY}</p>`,
  };
  return section('step-kyc', step, title, said[step]);
}

function bankSection(step: Exclude<BankStep, 'none'>): Part {
  const said: Record<Exclude<BankStep, 'none'>, SafeHtml> = {
    waiting: html`<p class="state">Nothing to do here: your bank account is added once the steps above are done.</p>`,
    adding: html`<p class="state">Your bank account is being added.</p>`,
    checking: html`<p class="state">Your bank account was added and is being checked.</p>`,
    approved: html`<p class="state ok">Done: your bank account is approved.</p>`,
    failed: html`<p class="state problem">Your bank account could not be verified: the team will contact you.</p>`,
  };
  return section('step-bank', step, 'Your bank account', said[step]);
}

/** The one page every link that does not lead anywhere gets, whatever the reason: it tells a guesser nothing. */
export function notValidPage(): string {
  return payerLayout(
    'Link not valid',
    html`<h1>This link has expired or is not valid</h1>
<p>Ask the team that sent it for a new one.</p>`,
  );
}

/** serve could not read the store: nothing about the link is said, only to come back. */
export function troublePage(): string {
  return payerLayout(
    'Not available',
    html`<h1>This page is not available just now</h1>
<p>Try again in a few minutes.</p>`,
  );
}

export function heldPage(heldMs: number): string {
  const minutes = Math.max(1, Math.ceil(heldMs / 60_000));
  return payerLayout(
    'Too many tries',
    html`<h1>Too many tries</h1>
<p>Too many links that are not valid were opened from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>`,
  );
}

function payerLayout(title: string, body: SafeHtml, script = false): string {
  return toText(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${BASE}/assets/app.css">
${script ? html`<script src="${BASE}/assets/payer.js" defer></script>` : ''}
</head>
<body class="payer">
<main>
${body}
</main>
</body>
</html>
`);
}
