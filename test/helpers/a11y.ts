import axe from 'axe-core';
import type { Page } from 'playwright-core';

// What the accessibility checks of the pages share: axe-core's WCAG 2.x A and AA rules run in the page, the focus
// ring of every control the keyboard reaches, and whether the page is wider than the window.

const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's WCAG 2.x A and AA rules (up to 2.2) on the page as it stands; the serious and critical violations. A
 * frame's page is another site's (the service's agreement): not looked into.
 */
export async function seriousViolations(page: Page): Promise<Array<Omit<Violation, 'impact'>>> {
  // Evaluated by the browser's debugger, not as a script of the page: the pages' CSP allows only their own scripts.
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(axe.source);
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_AA)} }, iframes: false })
    .then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')),
    })))`)) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(({ id, help, targets }) => ({ id, help, targets }));
}

export interface Ring {
  /** The element, by its place in the page and its name. */
  what: string;
  style: string;
  width: number;
  /** Of the outline's colour against the background it is drawn on, by WCAG's formula. */
  contrast: number;
}

/**
 * The focused element's outline, or nothing when the focus has left the page's controls. The outline is drawn around
 * the element, on its parent's background: the nearest ancestor's that has one, else the browser's white.
 */
const FOCUS_RING = `(() => {
  const el = document.activeElement;
  if (el === null || el === document.body) return null;
  const luminance = (color) => {
    const [r, g, b] = (color.match(/[\\d.]+/g) || []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  let under = 'rgb(255, 255, 255)';
  for (let p = el.parentElement; p !== null; p = p.parentElement) {
    const bg = getComputedStyle(p).backgroundColor;
    if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') { under = bg; break; }
  }
  const style = getComputedStyle(el);
  const [light, dark] = [luminance(style.outlineColor), luminance(under)].sort((a, b) => b - a);
  return {
    what: el.tagName.toLowerCase() + ' ' + [...document.querySelectorAll('*')].indexOf(el) + ': ' +
      (el.getAttribute('aria-label') || el.textContent.trim().slice(0, 20)),
    style: style.outlineStyle,
    width: parseFloat(style.outlineWidth),
    contrast: (light + 0.05) / (dark + 0.05),
  };
})()`;

/** Tabs through the page from its top and reads the outline of every control the keyboard reaches, once each. */
export async function focusRings(page: Page, most = 300): Promise<Ring[]> {
  const rings: Ring[] = [];
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    const ring = (await page.evaluate(FOCUS_RING)) as Ring | null;
    if (ring === null || rings.some((r) => r.what === ring.what)) break;
    rings.push(ring);
  }
  return rings;
}

/** How wide the page is against the window: wider means it scrolls sideways. */
export async function pageWidth(page: Page): Promise<{ scrollWidth: number; viewport: number }> {
  return (await page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, viewport: window.innerWidth })',
  )) as { scrollWidth: number; viewport: number };
}
