// A real browser for the WebAuthn tests: Debian's Chromium, headless, driven by puppeteer-core, with a DevTools
// virtual authenticator (CTAP2, internal transport, resident keys, user verification); the page is served by the
// test and loads @supabase/auth-js bundled for the browser by esbuild.
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import puppeteer, { type Browser, type CDPSession, type Page } from 'puppeteer-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser to drive, or undefined where none is installed (the suite then says so and skips). */
export function chromiumPath(): string | undefined {
  const found = CANDIDATES.find((p): p is string => typeof p === 'string' && existsSync(p));
  if (!found && process.env.KEYZONE_REQUIRE_BROWSER === '1') {
    throw new Error('KEYZONE_REQUIRE_BROWSER=1 but no Chromium was found (install Debian\'s chromium or set CHROMIUM_PATH)');
  }
  return found;
}

let bundled: Promise<string> | undefined;

/** auth-js as one browser script that sets window.AuthClient. */
export function authJsBundle(): Promise<string> {
  bundled ??= build({
    stdin: { contents: "import { AuthClient } from '@supabase/auth-js'; window.AuthClient = AuthClient;", resolveDir: path.join(__dirname, '..', '..'), loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);
  return bundled;
}

export interface PageServer {
  /** http://localhost:<port>: a secure context, so WebAuthn works without TLS. */
  origin: string;
  close(): Promise<void>;
}

/** Serves an empty page that loads auth-js, on localhost. */
export async function startPageServer(): Promise<PageServer> {
  const script = await authJsBundle();
  const server = http.createServer((req, res) => {
    if (req.url === '/auth-js.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><script src="/auth-js.js"></script></head><body>keyzone test</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function launchBrowser(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check'],
  });
}

export interface AuthenticatorPage {
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
}

/**
 * A new tab at `origin` with its own virtual authenticator that verifies the user: a platform one (`internal`, as
 * a phone or laptop holding passkeys) or a security key (`usb`: auth-js asks for a cross-platform one for MFA).
 */
export async function pageWithAuthenticator(browser: Browser, origin: string, transport: 'internal' | 'usb' = 'internal'): Promise<AuthenticatorPage> {
  const page = await browser.newPage();
  await page.goto(origin, { waitUntil: 'load' });
  const cdp = await page.createCDPSession();
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport, hasResidentKey: true, hasUserVerification: true, isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { page, cdp, authenticatorId };
}
