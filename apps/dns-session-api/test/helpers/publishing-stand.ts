// A DNS API that publishes to a real PowerDNS and a real BIND, as the publishing, record-type, zone-name and tenancy
// tests each need: both nameservers started in a temporary folder, the publisher running every 0.2 s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { preparePowerDns, startBind, type Bind, type PowerDns } from './nameservers';
import { startTestServer, type TestServer } from './server';

export interface PublishingStand {
  pdns: PowerDns;
  bind: Bind;
  server: TestServer;
  /** Stops the publisher, the server and both nameservers, and removes the folder. */
  stop(): Promise<void>;
}

/** `powerdnsName` is the nameserver name the publish config gives the PowerDNS (the tests create it with that name). */
export async function startPublishingStand(prefix: string, powerdnsName: string): Promise<PublishingStand> {
  const dir = mkdtempSync(path.join(tmpdir(), `kz-${prefix}-`));
  const pdns = await preparePowerDns(path.join(dir, 'pdns'));
  await pdns.start();
  const bind = await startBind(path.join(dir, 'bind'));
  const server = await startTestServer({
    publish: {
      enabled: true, pollSeconds: 0.2, timeoutSeconds: 5, maxRetrySeconds: 1,
      powerdns: { [powerdnsName]: { url: pdns.apiUrl, apiKey: pdns.apiKey, serverId: 'localhost' } },
      zoneFiles: { directory: bind.zonesDir, includeFile: bind.includeFile, reloadCommand: bind.reloadCommand },
    },
  });
  server.deps.publisher?.start();
  return {
    pdns,
    bind,
    server,
    stop: async () => {
      await server.deps.publisher?.stop();
      await server.close();
      await pdns.stop();
      await bind.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
