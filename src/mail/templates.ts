import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { html, teamMarkup, toText } from '../core/html.js';
import { packageRoot } from '../core/packageRoot.js';

// The mails' words live in files the team edits, so each is read and checked once, at start: a typo in a
// placeholder is a usage error naming its file, line and column, never a mail that goes out with `{{fristName}}`.

export type MailKind = 'invitation' | 'reminder' | 'bank-added';

const MAIL_KINDS: readonly MailKind[] = ['invitation', 'reminder', 'bank-added'];
/** The kinds every folder of templates must hold; a folder made before another kind existed gets the package's. */
const REQUIRED_KINDS: readonly MailKind[] = ['invitation', 'reminder'];

type Placeholder = 'firstName' | 'link' | 'teamName' | 'deadline' | 'teamContact';

/**
 * The placeholders each kind may use: an invitation and a reminder lead to the payer's page (the link, when it stops
 * working); the mail that tells a payer a bank account was added to their record has no link, only whom to write to.
 */
const PLACEHOLDERS: Readonly<Record<MailKind, readonly Placeholder[]>> = {
  invitation: ['firstName', 'link', 'teamName', 'deadline'],
  reminder: ['firstName', 'link', 'teamName', 'deadline'],
  'bank-added': ['firstName', 'teamName', 'teamContact'],
};

/** What a mail says of one payer: their first name and, in an invitation or a reminder, their link; nothing else. */
export interface MailValues {
  firstName: string;
  teamName: string;
  /** The address the payer writes to the team at: the reply-to address, else the sender's. */
  teamContact?: string;
  /** The payer's own page: the one URL an invitation or a reminder holds. */
  link?: string;
  /** When the link stops working. */
  deadline?: Date;
}

interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** A template split at its placeholders, ready to fill in. */
type Parts = ReadonlyArray<string | { name: Placeholder }>;

interface KindTemplates {
  subject: Parts;
  text: Parts;
  html: Parts;
}

/** Every template of a folder, checked. */
export interface MailTemplates {
  readonly dir: string;
  readonly kinds: Readonly<Record<MailKind, KindTemplates>>;
}

/** Where a piece of a template starts in its file, 1-based. */
interface Place {
  line: number;
  column: number;
}

const FILE_START: Place = { line: 1, column: 1 };

/** A problem of a file, at a place in it or of the whole file. */
interface Problem {
  file: string;
  line?: number;
  column?: number;
  message: string;
}

/** The package's own templates, in plain English; the team copies the folder to edit it. */
export function defaultTemplatesDir(): string {
  return join(packageRoot(), 'mail');
}

/**
 * Reads and checks the templates of `dir`: `invitation.txt`, `invitation.html`, `reminder.txt`, `reminder.html`, and
 * `bank-added.txt` and `.html`, which a folder copied before they existed may lack: the package's own are read then,
 * and `warnings` says so. Every problem of every file is reported at once, as one usage error (exit 2).
 */
export function loadTemplates(dir: string, warnings: string[] = []): MailTemplates {
  const problems: Problem[] = [];
  const kinds = {} as Record<MailKind, KindTemplates>;
  for (const kind of MAIL_KINDS) {
    const own = REQUIRED_KINDS.includes(kind) || ['txt', 'html'].some((ext) => existsSync(join(dir, `${kind}.${ext}`)));
    if (!own)
      warnings.push(
        `mail templates: ${dir} has no ${kind}.txt and ${kind}.html: the package's own words are used for that mail ` +
          `(copy them from ${defaultTemplatesDir()} to change them)`,
      );
    kinds[kind] = loadKind(own ? dir : defaultTemplatesDir(), kind, problems);
  }
  if (problems.length > 0) {
    const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
    // In the order a person goes through the files: by name, then from the top, a whole file's problem last.
    const where = (p: Problem) => [p.file, p.line ?? Number.POSITIVE_INFINITY, p.column ?? 0] as const;
    problems.sort((a, b) => {
      const [fa, la, ca] = where(a);
      const [fb, lb, cb] = where(b);
      return fa < fb ? -1 : fa > fb ? 1 : la - lb || ca - cb;
    });
    throw new ConfigError(`mail templates: ${count} in ${dir}\n${problems.map(describe).join('\n')}`, 'E_USAGE');
  }
  return { dir, kinds };
}

function loadKind(dir: string, kind: MailKind, problems: Problem[]): KindTemplates {
  const txtFile = join(dir, `${kind}.txt`);
  const htmlFile = join(dir, `${kind}.html`);
  const allowed = PLACEHOLDERS[kind];
  const linked = allowed.includes('link');
  const templates: KindTemplates = { subject: [], text: [], html: [] };
  const missing = REQUIRED_KINDS.includes(kind)
    ? "the folder needs invitation.txt, invitation.html, reminder.txt and reminder.html (copy the package's mail/ folder to start from)"
    : `give ${kind}.txt and ${kind}.html together, or neither (the package's own are used then)`;
  const txt = readTemplate(txtFile, problems, missing);
  const mail = txt === undefined ? undefined : splitSubject(txtFile, txt, problems);
  if (mail !== undefined) {
    templates.subject = parse(txtFile, mail.subject, problems, mail.subjectAt, allowed);
    templates.text = parse(txtFile, mail.body, problems, mail.bodyAt, allowed);
    checkUrls(txtFile, mail.subject, problems, mail.subjectAt, linked);
    checkUrls(txtFile, mail.body, problems, mail.bodyAt, linked);
    if (linked) needsLink(txtFile, templates.text, problems);
  }
  const html = readTemplate(htmlFile, problems, missing);
  if (html !== undefined) {
    templates.html = parse(htmlFile, html, problems, FILE_START, allowed);
    checkUrls(htmlFile, html, problems, FILE_START, linked);
    if (linked) needsLink(htmlFile, templates.html, problems);
  }
  return templates;
}

function describe(problem: Problem): string {
  const at = problem.line === undefined ? '' : `:${problem.line}:${problem.column}`;
  return `${problem.file}${at}: ${problem.message}`;
}

function readTemplate(file: string, problems: Problem[], missing: string): string | undefined {
  try {
    // A BOM an editor put there is not part of the subject line.
    return readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push({
      file,
      message: code === 'ENOENT' ? `missing: ${missing}` : `cannot be read (${code})`,
    });
    return undefined;
  }
}

/** The .txt file's first line is `Subject: ...`, then a blank line, then the body: how a mail itself is laid out. */
function splitSubject(
  file: string,
  content: string,
  problems: Problem[],
): { subject: string; subjectAt: Place; body: string; bodyAt: Place } | undefined {
  const match = /^(Subject:[ \t]*)([^\r\n]*)\r?\n[ \t]*(?:\r?\n|$)/i.exec(content);
  if (match === null) {
    problems.push({
      file,
      ...FILE_START,
      message: 'must start with a line `Subject: ...`, then a blank line, then the text of the mail',
    });
    return undefined;
  }
  const subject = match[2]!.trimEnd();
  if (subject === '') {
    problems.push({ file, ...FILE_START, message: 'the subject is empty' });
    return undefined;
  }
  return {
    subject,
    subjectAt: { line: 1, column: match[1]!.length + 1 },
    body: content.slice(match[0].length),
    bodyAt: { line: 3, column: 1 },
  };
}

/**
 * Splits a template at its placeholders; every `{{` must open one of ours. `start` is where `text` begins in its
 * file, so that a problem is placed where the team sees it.
 */
function parse(file: string, text: string, problems: Problem[], start: Place, allowed: readonly Placeholder[]): Parts {
  const parts: Array<string | { name: Placeholder }> = [];
  const placeholder = /\{\{\s*([^{}\s]+)\s*\}\}/y;
  let from = 0;
  for (let at = text.indexOf('{{'); at !== -1; at = text.indexOf('{{', from)) {
    parts.push(text.slice(from, at));
    placeholder.lastIndex = at;
    const match = placeholder.exec(text);
    if (match === null) {
      problems.push({
        file,
        ...position(text, at, start),
        message: `\`{{\` opens no placeholder: ${known(allowed)}`,
      });
      from = at + 2;
      continue;
    }
    const name = match[1]!;
    if ((allowed as readonly string[]).includes(name)) parts.push({ name: name as Placeholder });
    else problems.push({ file, ...position(text, at, start), message: unknownPlaceholder(name, allowed) });
    from = at + match[0].length;
  }
  parts.push(text.slice(from));
  return parts;
}

function unknownPlaceholder(name: string, allowed: readonly Placeholder[]): string {
  const near = allowed.find((p) => p.toLowerCase() === name.toLowerCase());
  return `unknown placeholder {{${name}}}${near === undefined ? '' : ` (did you mean {{${near}}}?)`}: ${known(allowed)}`;
}

function known(allowed: readonly Placeholder[]): string {
  return `the placeholders are ${allowed.map((p) => `{{${p}}}`).join(', ')}`;
}

function position(text: string, index: number, start: Place): Place {
  const before = text.slice(0, index);
  const newlines = before.split('\n').length - 1;
  const lineStart = before.lastIndexOf('\n') + 1;
  return {
    line: start.line + newlines,
    column: (newlines === 0 ? start.column : 1) + index - lineStart,
  };
}

function needsLink(file: string, parts: Parts, problems: Problem[]): void {
  if (!parts.some((part) => typeof part !== 'string' && part.name === 'link')) {
    problems.push({ file, message: 'never uses {{link}}: the mail would not take the payer to their page' });
  }
}

const LINK_ATTRIBUTES =
  /\b(href|src|srcset|action|formaction|background|poster|cite|longdesc)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi;
const URL_LIKE = /[a-z][a-z0-9+.-]*:\/\/|\burl\s*\(|@import\b|\bwww\./gi;

/**
 * The payer's link is the mail's only URL: no other link, no image or style fetched from elsewhere (which would tell
 * a third party when the mail is read), so that a payer can trust the one link there is. In the HTML a link
 * attribute holds `"{{link}}"` or nothing; in any template, nothing else looks like a URL. A mail without a link
 * (`linked` false) holds no URL at all: a payer told of a change to their record is never asked to click anything.
 */
function checkUrls(file: string, text: string, problems: Problem[], start: Place, linked: boolean): void {
  const reported: Array<[number, number]> = [];
  const only = linked
    ? 'the payer\'s link is the mail\'s only URL: write href="{{link}}", and no other link or image'
    : 'this mail holds no link or image: write the words alone';
  if (file.endsWith('.html')) {
    for (const m of text.matchAll(LINK_ATTRIBUTES)) {
      const value = m[2]!;
      if (linked && m[1]!.toLowerCase() === 'href' && /^(["'])\{\{\s*link\s*\}\}\1$/.test(value)) continue;
      reported.push([m.index, m.index + m[0].length]);
      problems.push({ file, ...position(text, m.index, start), message: `${m[0]}: ${only}` });
    }
  }
  for (const m of text.matchAll(URL_LIKE)) {
    if (reported.some(([from, to]) => m.index >= from && m.index < to)) continue;
    problems.push({
      file,
      ...position(text, m.index, start),
      message: linked
        ? `"${m[0]}" starts a URL: the payer's link ({{link}}) is the mail's only one`
        : `"${m[0]}" starts a URL: this mail holds none`,
    });
  }
}

/** The deadline written plainly: `Saturday, 14 March 2026 at 10:00 UTC`. */
function formatDeadline(deadline: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(deadline);
}

/**
 * One mail's subject, text and HTML for the given values: what `send` sends and what a preview shows. Each value
 * is one line of text (a line break in a name becomes a space: no header or line of the mail is made by a value);
 * in the HTML every value is escaped.
 */
export function renderMail(
  templates: MailTemplates,
  kind: MailKind,
  values: MailValues,
  timeZone = 'UTC',
): RenderedMail {
  const plain: Record<Placeholder, string> = {
    firstName: oneLine(values.firstName),
    link: '',
    teamName: oneLine(values.teamName),
    deadline: '',
    teamContact: oneLine(values.teamContact ?? ''),
  };
  if (PLACEHOLDERS[kind].includes('link')) {
    const link = new URL(values.link ?? '');
    if (link.protocol !== 'https:' && link.protocol !== 'http:') throw new TypeError('a mail link must be http(s)');
    if (values.deadline === undefined) throw new TypeError('a mail with a link says when it stops working');
    plain.link = link.href;
    plain.deadline = formatDeadline(values.deadline, timeZone);
  }
  const template = templates.kinds[kind];
  return {
    subject: fill(template.subject, plain),
    text: fill(template.text, plain),
    // The team's markup as written, each value escaped.
    html: toText(
      html`${template.html.map((part) => (typeof part === 'string' ? teamMarkup(part) : plain[part.name]))}`,
    ),
  };
}

function oneLine(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

function fill(parts: Parts, values: Record<Placeholder, string>): string {
  return parts.map((part) => (typeof part === 'string' ? part : values[part.name])).join('');
}
