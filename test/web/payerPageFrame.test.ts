import { describe, expect, it } from 'vitest';
import { FrameChecks, frameVerdict } from '../../src/web/payerPageFrame.js';

// Whether the service's agreement page may be framed by the payer's page, judged from its headers as a browser does:
// a browser refusing a frame still fires `load`, so the page's script asks serve, which asks the agreement page.

const PAGE = 'https://agree.service.example/agreement/u-1';
const OURS = 'https://payers.example.com';
const verdict = (headers: Record<string, string>, ours = OURS) => frameVerdict(new Headers(headers), PAGE, ours);

describe('frameVerdict', () => {
  it('X-Frame-Options DENY or SAMEORIGIN refuses; none, or a value browsers ignore, allows', () => {
    expect(verdict({})).toBe('allowed');
    expect(verdict({ 'x-frame-options': 'DENY' })).toBe('refused');
    expect(verdict({ 'x-frame-options': 'sameorigin' })).toBe('refused');
    expect(verdict({ 'x-frame-options': 'SAMEORIGIN' }, 'https://agree.service.example')).toBe('allowed');
    expect(verdict({ 'x-frame-options': 'ALLOW-FROM https://payers.example.com' })).toBe('allowed');
  });

  it('a CSP frame-ancestors decides when there is one (X-Frame-Options is then ignored): each source as a browser reads it', () => {
    const ancestors = (list: string, ours = OURS) =>
      verdict(
        { 'content-security-policy': `default-src 'self'; frame-ancestors ${list}`, 'x-frame-options': 'DENY' },
        ours,
      );
    expect(ancestors("'none'")).toBe('refused');
    expect(ancestors("'self'")).toBe('refused');
    expect(ancestors("'self'", 'https://agree.service.example')).toBe('allowed');
    expect(ancestors('*')).toBe('allowed');
    expect(ancestors('https:')).toBe('allowed');
    expect(ancestors('https:', 'http://127.0.0.1:8787')).toBe('refused');
    expect(ancestors('https://payers.example.com')).toBe('allowed');
    expect(ancestors('https://payers.example.com:8443')).toBe('refused');
    expect(ancestors('https://*.example.com')).toBe('allowed');
    expect(ancestors('*.example.com')).toBe('allowed');
    expect(ancestors('https://other.example.com https://payers.example.com/any/path')).toBe('allowed');
    expect(ancestors('http://payers.example.com')).toBe('allowed');
    expect(ancestors('https://payers.example.org')).toBe('refused');
    expect(ancestors('payers.example.com:*', 'https://payers.example.com:444')).toBe('allowed');
    // Two policies: each must allow it.
    expect(verdict({ 'content-security-policy': 'frame-ancestors *, frame-ancestors https://other.example' })).toBe(
      'refused',
    );
    expect(verdict({ 'content-security-policy': "script-src 'self'", 'x-frame-options': 'DENY' })).toBe('refused');
  });
});

describe('FrameChecks', () => {
  it('asks once per page and origin for a while; an agreement page out of reach is unknown, and asked again sooner', async () => {
    let now = 0;
    const asked: string[] = [];
    const checks = new FrameChecks(
      async (url) => {
        asked.push(url);
        if (url.includes('down')) throw new Error('ECONNREFUSED');
        return new Headers({ 'x-frame-options': 'DENY' });
      },
      () => now,
    );
    expect(await checks.verdict(PAGE, OURS)).toBe('refused');
    expect(await checks.verdict(PAGE, OURS)).toBe('refused');
    expect(await checks.verdict('https://down.example/a', OURS)).toBe('unknown');
    expect(asked).toEqual([PAGE, 'https://down.example/a']);
    now = 61_000;
    expect(await checks.verdict('https://down.example/a', OURS)).toBe('unknown');
    expect(await checks.verdict(PAGE, OURS)).toBe('refused');
    expect(asked).toHaveLength(3);
    now = 601_000;
    await checks.verdict(PAGE, OURS);
    expect(asked).toHaveLength(4);
  });
});
