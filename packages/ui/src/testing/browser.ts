// Debian's Chromium, headless, driven by puppeteer-core: the one browser every screen test of both services uses.
// Where none is installed the suites skip and say so, except under KEYZONE_REQUIRE_BROWSER=1 (CI), where a
// missing browser is an error, so the screens can never go untested silently.
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser to drive, or undefined where none is installed. */
export function chromiumPath(): string | undefined {
  const found = CANDIDATES.find((p): p is string => typeof p === 'string' && existsSync(p));
  if (!found && process.env.KEYZONE_REQUIRE_BROWSER === '1') {
    throw new Error("KEYZONE_REQUIRE_BROWSER=1 but no Chromium was found (install Debian's chromium or set CHROMIUM_PATH)");
  }
  return found;
}

/**
 * A headless Chromium. The background-networking flags keep it from calling out (this machine has no network,
 * and a test must not depend on one); a new profile per launch keeps tests from sharing cookies.
 */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic',
    ],
  });
}
