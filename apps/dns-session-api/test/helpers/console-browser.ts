/// <reference lib="dom" />
// The DNS console in headless Chromium for a browser test: the console built if it is not, a page that may only
// reach the service's origin (any other request is aborted and kept), axe-core per screen, and the ways the tests
// find things: fields by their label, buttons by their accessible name.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { pagesBuilt } from '@keyzone/ui/server';
import { launchBrowser, seriousAccessibilityViolations } from '@keyzone/ui/testing';
import { CONSOLE_DIR } from '../../src/app';
import { APP_DIR, PASSWORD } from './server';

export interface ConsolePage {
  browser: Browser;
  page: Page;
  /** Requests the page tried to send anywhere but the service. */
  foreignRequests: string[];
  /** Serious or critical axe-core violations found by `audit`, per screen. */
  violations: Array<{ screen: string; found: unknown }>;
  audit(screen: string): Promise<void>;
  /** With KEYZONE_SCREENSHOTS=1, the page as docs/screenshots/dns-<name>.png (for the README). */
  screenshot(name: string): Promise<void>;
  waitForText(text: string): Promise<void>;
  /** The selector of the field labelled `label` (inside `scope` when given). */
  field(label: string, scope?: string): Promise<string>;
  /** Replaces a field's value the way React sees typing. */
  fill(label: string, value: string, scope?: string): Promise<void>;
  click(name: string): Promise<void>;
  /** The text the field's aria-describedby points at (its hint and its error). */
  describedText(selector: string): Promise<string>;
  /** Signs the page in as user@group (after signing out whoever was). */
  signIn(login: string, password?: string): Promise<void>;
  close(): Promise<void>;
}

export async function openConsole(serverUrl: string, browserPath: string): Promise<ConsolePage> {
  if (!pagesBuilt(CONSOLE_DIR)) execFileSync('npx', ['vite', 'build', '--config', 'console/vite.config.mts'], { cwd: APP_DIR, stdio: 'inherit' });
  const browser = await launchBrowser(browserPath);
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const foreignRequests: string[] = [];
  const violations: ConsolePage['violations'] = [];
  await page.setRequestInterception(true);
  page.on('request', (request: HTTPRequest) => {
    const own = request.url().startsWith(`${serverUrl}/`) || request.url().startsWith('data:');
    if (!own) foreignRequests.push(request.url());
    void (own ? request.continue() : request.abort());
  });

  const field = async (label: string, scope = 'body') => {
    const id = await page.evaluate((text, within) => {
      const root = document.querySelector(within);
      return Array.from(root?.querySelectorAll('label') ?? []).find((l) => l.textContent === text)?.htmlFor;
    }, label, scope);
    if (!id) throw new Error(`no field labelled ${label}`);
    return `[id="${id}"]`;
  };
  const fill = async (label: string, value: string, scope?: string) => {
    await page.$eval(await field(label, scope), (element, text) => {
      const proto = element instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(element, text);
      element.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
  };
  const click = async (name: string) => {
    const button = await page.waitForSelector(`::-p-aria(${name}[role="button"])`, { visible: true });
    await button!.click();
  };
  const waitForText = async (text: string) => {
    await page.waitForFunction((t) => document.body.innerText.includes(t), { timeout: 30_000 }, text);
  };

  return {
    browser, page, foreignRequests, violations, field, fill, click, waitForText,
    async audit(screen) {
      const found = await seriousAccessibilityViolations(page);
      if (found.length > 0) violations.push({ screen, found });
    },
    async screenshot(name) {
      if (process.env.KEYZONE_SCREENSHOTS !== '1') return;
      await page.screenshot({ path: path.join(APP_DIR, '..', '..', 'docs', 'screenshots', `dns-${name}.png`), fullPage: true });
    },
    describedText: (selector) => page.$eval(selector, (input) =>
      (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ')),
    async signIn(login, password = PASSWORD) {
      await page.deleteCookie(...(await page.cookies(serverUrl)));
      await page.goto(`${serverUrl}/`, { waitUntil: 'networkidle0' });
      await page.waitForSelector('::-p-aria(Sign in[role="button"])');
      await fill('User', login);
      await fill('Password', password);
      await click('Sign in');
      await page.waitForSelector('h1::-p-text(Zones)');
    },
    close: () => browser.close(),
  };
}
