import { describe, expect, it } from 'vitest';
import { html, joined, teamMarkup, toText } from '../../src/core/html.js';

describe('the html tag', () => {
  it('escapes each value, numbers and lists included; what html made and the team wrote pass as markup', () => {
    const cell = '<img src=x onerror=alert(1)>';
    expect(toText(html`<td>${cell}</td><td>${7}</td>${[cell, html`<br>`]}${undefined}${false}${null}`)).toBe(
      '<td>&lt;img src=x onerror=alert(1)&gt;</td><td>7</td>&lt;img src=x onerror=alert(1)&gt;<br>',
    );
    expect(toText(html`<p>${teamMarkup('<b>team</b>')}</p>`)).toBe('<p><b>team</b></p>');
  });

  it('joins pieces with a separator that is text like any value', () => {
    expect(toText(joined([html`<b>a</b>`, 'b&c', html`<i>d</i>`], ' <> '))).toBe(
      '<b>a</b> &lt;&gt; b&amp;c &lt;&gt; <i>d</i>',
    );
    expect(toText(joined([], ', '))).toBe('');
  });
});
