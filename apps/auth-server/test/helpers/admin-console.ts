// What the admin console's browser tests share: the console built from this checkout, a server with mail, an admin
// with a TOTP factor (the console asks for it), a service key for checking results through the API, one Chromium per
// file with a browser context per page (no cookie session leaks between tests), and the page helpers (typing the way
// React sees it, fields by label, buttons by accessible name, axe, screenshots).
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import https from 'node:https';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser, seriousAccessibilityViolations } from '@keyzone/ui/testing';
import { call } from './http';
import type { Deps } from '../../src/deps';
import { startEmailTestServer, type EmailTestServer } from './email-server';
import { startOidcProvider, type OidcProvider } from './oidc-provider';
import { startSamlIdp, type SamlIdp } from './saml-idp';
import type { TestServerOptions } from './server';
import { createTestCa } from './test-ca';
import { authenticatorCode } from './totp';

const ROOT = path.join(__dirname, '..', '..');
const SCREENSHOTS = path.join(ROOT, '..', '..', 'docs', 'screenshots');

/**
 * The screens as this checkout has them (the build is quick; a stale bundle would test old code). NODE_ENV is jest's
 * `test` here, which would make Vite bundle React's development build: the test drives what ships instead, and leaves
 * dist/ as `pnpm build` makes it (bench/admin-console-size.js measures it).
 */
export function buildAdminConsole(): void {
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'error', '-c', 'console/vite.admin.config.mts'], {
    cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' },
  });
}

export interface ConsoleAdmin {
  email: string;
  password: string;
  id: string;
  totpSecret: string;
}

export interface AdminConsoleStand {
  server: EmailTestServer;
  browser: Browser;
  admin: ConsoleAdmin;
  /** A service-role token: checks what the console did through the API, outside the browser. */
  serviceToken: string;
  serviceCall(method: string, url: string, body?: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** A fresh TOTP code for the admin (the server's clock moves to a new 30-second step: each code is taken once). */
  totpCode(): Promise<string>;
  /** A page in a browser context of its own. */
  freshPage(): Promise<Page>;
  /** Opens the console and signs in with a password (no second factor yet). */
  signIn(page: Page, email: string, password: string): Promise<void>;
  /** The admin, password then TOTP, until the users screen shows. */
  signInAsAdmin(page: Page): Promise<void>;
  close(): Promise<void>;
}

/**
 * The server (JWT_ADMIN_ROLES includes console_admin), the admin with a verified TOTP factor, and Chromium. `env` and
 * `configure` are the test server's.
 */
export async function startAdminConsoleStand(options: TestServerOptions & { browserPath: string; admin?: { email: string; password: string } }): Promise<AdminConsoleStand> {
  buildAdminConsole();
  const server = await startEmailTestServer({
    ...options,
    env: { JWT_ADMIN_ROLES: 'service_role,supabase_admin,console_admin', MAILER_AUTOCONFIRM: 'true', ...options.env },
  });
  const admin: ConsoleAdmin = { email: options.admin?.email ?? 'admin@console.test', password: options.admin?.password ?? 'admin-password-1', id: '', totpSecret: '' };
  const serviceToken = await server.deps.jwt.sign({ role: 'service_role', sub: 'test-service' }, { expiresInSeconds: 86400, now: server.clock.now() });
  const serviceCall = async (method: string, url: string, body?: unknown) => {
    const result = await call(server.url, method, url, { token: serviceToken, body });
    if (result.status >= 300) throw new Error(`${method} ${url}: ${result.status} ${result.text}`);
    return result.body;
  };
  const totpCode = async () => {
    server.clock.advance(30);
    return authenticatorCode(admin.totpSecret, server.clock.now());
  };

  const created = await serviceCall('POST', '/admin/users', { email: admin.email, password: admin.password, email_confirm: true, role: 'console_admin' });
  admin.id = created.id;
  const session = (await call(server.url, 'POST', '/token?grant_type=password', { body: { email: admin.email, password: admin.password } })).body;
  const factor = (await call(server.url, 'POST', '/factors', { token: session.access_token, body: { factor_type: 'totp', friendly_name: 'Admin phone' } })).body;
  admin.totpSecret = factor.totp.secret;
  const challenge = (await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token: session.access_token })).body.id;
  const verified = await call(server.url, 'POST', `/factors/${factor.id}/verify`, { token: session.access_token, body: { challenge_id: challenge, code: await totpCode() } });
  if (verified.status !== 200) throw new Error(`the admin's factor: ${verified.status} ${verified.text}`);

  let browser: Browser;
  try {
    browser = await launchBrowser(options.browserPath);
  } catch (err) {
    await server.close();
    throw err;
  }

  const freshPage = async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    page.once('close', () => void context.close().catch(() => undefined));
    return page;
  };
  const signIn = async (page: Page, email: string, password: string) => {
    await page.goto(`${server.url}/admin/console/`);
    await page.waitForSelector('label::-p-text(E-mail)');
    await fill(page, await fieldId(page, 'E-mail'), email);
    await fill(page, await fieldId(page, 'Password'), password);
    await clickButton(page, 'Sign in');
  };
  const signInAsAdmin = async (page: Page) => {
    await signIn(page, admin.email, admin.password);
    await page.waitForSelector('label::-p-text(Authentication code)');
    await fill(page, await fieldId(page, 'Authentication code'), await totpCode());
    await clickButton(page, 'Verify');
    await page.waitForSelector('::-p-aria(Users[role="heading"])');
  };
  return {
    server, browser, admin, serviceToken, serviceCall, totpCode, freshPage, signIn, signInAsAdmin,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/** Types into a field the way React sees it (long values such as metadata XML at once). */
export async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.$eval(selector, (element, text) => {
    const proto = element instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(element, text);
    element.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);
}

/** The field whose label is `label`. */
export async function fieldId(page: Page, label: string): Promise<string> {
  const id = await page.evaluate((text) => Array.from(document.querySelectorAll('label')).find((l) => l.textContent === text)?.htmlFor, label);
  if (!id) throw new Error(`no field labelled ${label}`);
  return `[id="${id}"]`;
}

export async function clickButton(page: Page, name: string): Promise<void> {
  const button = await page.waitForSelector(`::-p-aria(${name}[role="button"])`);
  await button!.click();
}

/** The text shown as the error of the field labelled `label` (what aria-describedby points at), or undefined. */
export async function fieldErrorText(page: Page, label: string): Promise<string | undefined> {
  const selector = await fieldId(page, label);
  return page.$eval(selector, (el) => {
    if (el.getAttribute('aria-invalid') !== 'true') return undefined;
    const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
  });
}

export async function expectAccessible(page: Page, screen: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  expect({ screen, violations }).toEqual({ screen, violations: [] });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.KEYZONE_SCREENSHOTS === '1') await page.screenshot({ path: path.join(SCREENSHOTS, `auth-console-${name}.png`), fullPage: true });
}

export interface ConsoleIdentityProviders {
  /** An OpenID Connect provider over HTTPS (a test CA's certificate), for custom providers. */
  idp: OidcProvider;
  /** A SAML identity provider, for SSO providers. */
  saml: SamlIdp;
  /** What the server needs to reach them: SAML on with a key, loopback allowed outbound, the test CA trusted. */
  env: Record<string, string>;
  configure(deps: Deps): Deps;
  close(): Promise<void>;
}

export async function startConsoleIdentityProviders(): Promise<ConsoleIdentityProviders> {
  const ca = createTestCa();
  const leaf = ca.issue(['localhost'], ['127.0.0.1']);
  const samlKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs1' }) as string;
  const [idp, saml] = await Promise.all([startOidcProvider({ tls: leaf }), startSamlIdp()]);
  return {
    idp, saml,
    env: { SAML_ENABLED: 'true', SAML_PRIVATE_KEY: samlKey, OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32' },
    configure: (deps) => ({ ...deps, outboundHttpsAgent: new https.Agent({ ca: ca.caPem }) }),
    close: async () => {
      await Promise.all([idp.close(), saml.close()]);
    },
  };
}
