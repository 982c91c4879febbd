// A test server with the DNS console open on it in headless Chromium (helpers/console-browser.ts), for browser
// tests that need nothing else running.
import { chromiumPath } from '@keyzone/ui/testing';
import { openConsole, type ConsolePage } from './console-browser';
import { startTestServer, type StartOptions, type TestServer } from './server';

export const browserPath = chromiumPath();

export interface ConsoleStand extends ConsolePage {
  server: TestServer;
}

export async function startConsoleStand(options: StartOptions = { kind: 'postgres' }): Promise<ConsoleStand> {
  if (!browserPath) throw new Error('no Chromium');
  const server = await startTestServer(options);
  const consolePage = await openConsole(server.url, browserPath);
  return {
    ...consolePage,
    server,
    async close() {
      await consolePage.close();
      await server.close();
    },
  };
}
