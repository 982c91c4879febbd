// The hosted landing page of mailed links (console/hosted/pages/landing.tsx, at / and /hosted/) in headless Chromium on a phone-sized screen (issue 39): an error
// description wraps between words, never inside one, and a long token still fits without a sideways scroll.
import type { Browser } from 'puppeteer-core';
import { chromiumPath, launchBrowser } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

const browserPath = chromiumPath();
const describeInBrowser = browserPath ? describe : describe.skip;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  if (!browserPath) return;
  server = await startTestServer();
  browser = await launchBrowser(browserPath);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describeInBrowser('the site page', () => {
  it('wraps the error details between words, and a long token without overflowing', async () => {
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 360, height: 640 });
      const description = 'Email link is invalid or has expired, please request another confirmation message';
      const token = 'x'.repeat(200);
      await page.goto(`${server.url}/#error=access_denied&error_code=otp_expired&error_description=${encodeURIComponent(description)}&access_token=${token}`);
      await page.waitForSelector('#result dd');
      const layout = await page.evaluate(() => {
        const broken: string[] = [];
        for (const dd of Array.from(document.querySelectorAll('dd'))) {
          const text = dd.firstChild as Text;
          // A word whose letters sit on two lines has more than one box.
          for (const match of (text.data.match(/\S+/g) ?? []).map((word) => ({ word, at: text.data.indexOf(word) }))) {
            const range = document.createRange();
            range.setStart(text, match.at);
            range.setEnd(text, match.at + match.word.length);
            const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
            if (lines.size > 1) broken.push(match.word);
          }
        }
        return { broken, overflow: document.documentElement.scrollWidth - window.innerWidth, lines: document.querySelectorAll('dd').length };
      });
      expect(layout.lines).toBeGreaterThanOrEqual(3);
      expect(layout.broken).toEqual([]);
      expect(layout.overflow).toBeLessThanOrEqual(0);

      // The same page with a 200-character word (a token): it is broken, as it must be to fit.
      await page.goto(`${server.url}/?error=x&error_description=${token}`);
      await page.waitForSelector('#result dd');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await page.close();
    }
  });
});
