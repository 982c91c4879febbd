// What every command that touches the database needs: the configuration (its problems printed as one message,
// exit 1) and a connection. Loaded only by the commands that use it, never by `version` or `--help`.
import path from 'node:path';
import { envDirsFor, exitOnConfigError, loadDnsConfig, readEnvFiles, type DnsConfig } from '@keyzone/config';
import { connect, defaultDatabaseUrl, type DnsDatabase } from '@keyzone/db';
import type { Telemetry } from '@keyzone/telemetry';

export const APP_NAME = 'dns-session-api';

export function loadConfig(): DnsConfig {
  try {
    // config/ sits beside dist/ and src/; DNS_CONFIG_DIR overrides it. The workspace root's .env, then the
    // app's own, lie under the environment (as for the auth server).
    const env = { ...readEnvFiles(envDirsFor(process.cwd())), ...process.env };
    return loadDnsConfig({ dir: path.join(__dirname, '..', '..'), env });
  } catch (err) {
    return exitOnConfigError(err);
  }
}

export function openDatabase(config: DnsConfig, telemetry?: Telemetry) {
  return connect<DnsDatabase>(config.database.url ?? defaultDatabaseUrl(APP_NAME), {
    preparedStatements: config.database.preparedStatements,
    onQuery: telemetry && config.telemetry.tracingEnabled ? (query) => telemetry.recordQuery(query) : undefined,
  });
}
