/// <reference lib="dom" />
// The DNS console in headless Chromium against a real service and database, for the console's browser tests: the
// built console (built here when missing), a page whose requests may not leave the service's origin, axe-core
// findings kept per screen, and the few ways the tests drive the page (fields found by their label, buttons by
// their accessible name).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { pagesBuilt } from '@keyzone/ui/server';
import { chromiumPath, launchBrowser, seriousAccessibilityViolations } from '@keyzone/ui/testing';
import { CONSOLE_DIR } from '../../src/app';
import { APP_DIR, PASSWORD, startTestServer, type StartOptions, type TestServer } from './server';

export const browserPath = chromiumPath();

export interface ConsoleStand {
  server: TestServer;
  browser: Browser;
  page: Page;
  /** requests the page made to another origin (each one aborted) */
  foreignRequests: string[];
  /** serious or critical axe-core findings, by screen */
  violations: Array<{ screen: string; found: unknown }>;
  audit(screen: string): Promise<void>;
  /** with KEYZONE_SCREENSHOTS=1, the page as docs/screenshots/dns-<name>.png (for the README) */
  screenshot(name: string): Promise<void>;
  waitForText(text: string): Promise<void>;
  /** the selector of the form control labelled `label` (inside `scope`) */
  field(label: string, scope?: string): Promise<string>;
  fill(label: string, value: string, scope?: string): Promise<void>;
  click(name: string): Promise<void>;
  /** signs the page in as user@group (after signing out whoever was) */
  signIn(login: string, password?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startConsoleStand(options: StartOptions = { kind: 'postgres' }): Promise<ConsoleStand> {
  if (!browserPath) throw new Error('no Chromium');
  if (!pagesBuilt(CONSOLE_DIR)) execFileSync('npx', ['vite', 'build', '--config', 'console/vite.config.mts'], { cwd: APP_DIR, stdio: 'inherit' });
  const server = await startTestServer(options);
  const browser = await launchBrowser(browserPath);
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.setRequestInterception(true);
  const foreignRequests: string[] = [];
  const violations: ConsoleStand['violations'] = [];
  page.on('request', (request: HTTPRequest) => {
    const own = request.url().startsWith(`${server.url}/`) || request.url().startsWith('data:');
    if (!own) foreignRequests.push(request.url());
    void (own ? request.continue() : request.abort());
  });

  const field: ConsoleStand['field'] = async (label, scope = 'body') => {
    const id = await page.evaluate((text, within) => {
      const root = document.querySelector(within);
      return Array.from(root?.querySelectorAll('label') ?? []).find((l) => l.textContent === text)?.htmlFor;
    }, label, scope);
    if (!id) throw new Error(`no field labelled ${label}`);
    return `[id="${id}"]`;
  };
  const fill: ConsoleStand['fill'] = async (label, value, scope) => {
    await page.$eval(await field(label, scope), (element, text) => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(element, text);
      element.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
  };
  const click: ConsoleStand['click'] = async (name) => {
    const button = await page.waitForSelector(`::-p-aria(${name}[role="button"])`, { visible: true });
    await button!.click();
  };
  const waitForText: ConsoleStand['waitForText'] = async (text) => {
    await page.waitForFunction((t) => document.body.innerText.includes(t), { timeout: 30_000 }, text);
  };

  return {
    server, browser, page, foreignRequests, violations, field, fill, click, waitForText,
    async audit(screen) {
      const found = await seriousAccessibilityViolations(page);
      if (found.length > 0) violations.push({ screen, found });
    },
    async screenshot(name) {
      if (process.env.KEYZONE_SCREENSHOTS !== '1') return;
      await page.screenshot({ path: path.join(APP_DIR, '..', '..', 'docs', 'screenshots', `dns-${name}.png`), fullPage: true });
    },
    async signIn(login, password = PASSWORD) {
      await page.deleteCookie(...(await page.cookies(server.url)));
      await page.goto(`${server.url}/`, { waitUntil: 'networkidle0' });
      await page.waitForSelector('::-p-aria(Sign in[role="button"])');
      await fill('User', login);
      await fill('Password', password);
      await click('Sign in');
      await page.waitForSelector('h1::-p-text(Zones)');
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
