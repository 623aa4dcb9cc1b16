import { describe, expect, it } from 'vitest';
import { html } from '../../src/core/html.js';
import { layout } from '../../src/web/layout.js';
import { Uploads } from '../../src/web/Uploads.js';

describe('html', () => {
  it('escapes every value, in lists too; only what html made is markup', () => {
    const cell = '<img src=x onerror=alert(1)> & "quoted" \'single\'';
    const inner = html`<b>${cell}</b>`;
    const page = layout(
      't',
      html`<p>${cell}</p><ul>${['<a>', inner].map((x) => html`<li>${x}</li>`)}</ul>${undefined}${false}`,
    );
    expect(page).toContain('<p>&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot; &#39;single&#39;</p>');
    expect(page).toContain('<li>&lt;a&gt;</li><li><b>&lt;img');
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('undefined');
  });

  it('a title is escaped too, and the signed-in header carries the CSRF token in its sign-out form', () => {
    const page = layout('</title><script>', html``, { csrf: 'tok"en' });
    expect(page).toContain('<title>&lt;/title&gt;&lt;script&gt; · payer-onboard</title>');
    expect(page).toContain('name="_csrf" value="tok&quot;en"');
  });
});

describe('Uploads.nameOf', () => {
  it('keeps the base name only, with odd characters made safe', () => {
    expect(Uploads.nameOf('../../etc/payers.csv')).toEqual({ name: 'payers.csv' });
    expect(Uploads.nameOf('C:\\Users\\ada\\Payers (Nov).xlsx')).toEqual({ name: 'Payers (Nov).xlsx' });
    expect(Uploads.nameOf('pay;ers$.csv')).toEqual({ name: 'pay_ers_.csv' });
  });

  it('refuses a type the tool does not read, naming the ones it does', () => {
    expect(Uploads.nameOf('payers.exe')).toEqual({
      problem: 'payers.exe: the tool reads .csv, .txt, .tsv, .xlsx, .jsonl and .ndjson files',
    });
    expect('problem' in Uploads.nameOf('..')).toBe(true);
  });
});
