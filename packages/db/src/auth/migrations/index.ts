// The auth migrations in the order they run. Add new files at the end with a later timestamp;
// never edit or reorder a shipped one.
import type { Migration, MigrationProvider } from 'kysely';
import { authNames } from './names';
import type { AuthMigrationUp } from './names';
import * as m202611230200 from './202611230200_core_tables';
import * as m202611230201 from './202611230201_tokens_and_mfa';
import * as m202611230202 from './202611230202_rls_helpers';
import * as m202611230203 from './202611230203_admin_search';
import * as m202611230204 from './202611230204_email_send_log';
import * as m202611240100 from './202611240100_limits_and_outbox';
import * as m202611250100 from './202611250100_oauth_flow';
import * as m202611250200 from './202611250200_mfa';
import * as m202611260100 from './202611260100_mfa_attempts';
import * as m202611260200 from './202611260200_flow_browser_binding';
import * as m202611270100 from './202611270100_saml_sso';
import * as m202611270200 from './202611270200_webauthn';
import * as m202611280300 from './202611280300_oauth_server';
import * as m202611290100 from './202611290100_custom_oauth_providers';
import * as m202611300100 from './202611300100_web3_nonces';
import * as m202611300200 from './202611300200_mfa_recovery_codes';
import * as m202612010100 from './202612010100_admin_console_filters';
import * as m202612020100 from './202612020100_audit_log_trail';

export const authMigrations: ReadonlyArray<readonly [string, AuthMigrationUp]> = [
  ['202611230200_core_tables', m202611230200.up],
  ['202611230201_tokens_and_mfa', m202611230201.up],
  ['202611230202_rls_helpers', m202611230202.up],
  ['202611230203_admin_search', m202611230203.up],
  ['202611230204_email_send_log', m202611230204.up],
  ['202611240100_limits_and_outbox', m202611240100.up],
  ['202611250100_oauth_flow', m202611250100.up],
  ['202611250200_mfa', m202611250200.up],
  ['202611260100_mfa_attempts', m202611260100.up],
  ['202611260200_flow_browser_binding', m202611260200.up],
  ['202611270100_saml_sso', m202611270100.up],
  ['202611270200_webauthn', m202611270200.up],
  ['202611280300_oauth_server', m202611280300.up],
  ['202611290100_custom_oauth_providers', m202611290100.up],
  ['202611300100_web3_nonces', m202611300100.up],
  ['202611300200_mfa_recovery_codes', m202611300200.up],
  ['202612010100_admin_console_filters', m202612010100.up],
  ['202612020100_audit_log_trail', m202612020100.up],
];

/** Migrations for one namespace (already validated), bound to its table names. */
export function authMigrationProvider(namespace: string | undefined): MigrationProvider {
  const names = authNames(namespace);
  const migrations: Record<string, Migration> = {};
  for (const [name, up] of authMigrations) migrations[name] = { up: (db) => up(db, names) };
  return { getMigrations: async () => migrations };
}
