// axe-core run inside the page under test. Injected through DevTools rather than a <script> tag, so the page's own
// strict CSP stays exactly as served.
import { readFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';

let axeSource: string | undefined;

export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The violations of impact serious or critical on the page as it is now. */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const session = await page.createCDPSession();
  try {
    await session.send('Runtime.evaluate', { expression: axeSource });
  } finally {
    await session.detach();
  }
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
