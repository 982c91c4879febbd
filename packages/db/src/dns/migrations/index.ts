// The dns migrations in the order they run. Add a file migrations/<yyyymmddHHMM>_<name>.ts exporting
// `up(db: Kysely<unknown>)` (typed against no schema; never import ../schema.ts) and append it here
// with a later timestamp; never edit or reorder a shipped one.
import type { Migration, MigrationProvider } from 'kysely';
import * as m202611230300 from './202611230300_create_schema';
import * as m202611230310 from './202611230310_groups_users_sessions';
import * as m202611230330 from './202611230330_zones_records_nameservers';
import * as m202611230400 from './202611230400_zone_record_targets_idx';
import * as m202611240100 from './202611240100_unique_group_names';
import * as m202611240110 from './202611240110_txt_character_strings';
import * as m202611240120 from './202611240120_nictool_import_map';
import * as m202611250100 from './202611250100_user_identities';
import * as m202611250200 from './202611250200_publish_jobs';
import * as m202611260100 from './202611260100_audit_client_address';
import * as m202611260200 from './202611260200_rate_limit_buckets';
import * as m202611270100 from './202611270100_api_tokens';
import * as m202611270200 from './202611270200_dnssec';
import * as m202611270300 from './202611270300_nsec3';
import * as m202611280100 from './202611280100_publish_isolation';
import * as m202611282100 from './202611282100_zone_mailbox_host_names';
import * as m202611282200 from './202611282200_nictool_permissions';
import * as m202611282300 from './202611282300_zone_delegations';
import * as m202611290100 from './202611290100_user_identities_any_subject';
import * as m202611300500 from './202611300500_tsig_keys';
import * as m202612020100 from './202612020100_secondary_zones';
import * as m202612020200 from './202612020200_zone_serial_history';

export const dnsMigrations: ReadonlyArray<readonly [string, Migration]> = [
  ['202611230300_create_schema', m202611230300],
  ['202611230310_groups_users_sessions', m202611230310],
  ['202611230330_zones_records_nameservers', m202611230330],
  ['202611230400_zone_record_targets_idx', m202611230400],
  ['202611240100_unique_group_names', m202611240100],
  ['202611240110_txt_character_strings', m202611240110],
  ['202611240120_nictool_import_map', m202611240120],
  ['202611250100_user_identities', m202611250100],
  ['202611250200_publish_jobs', m202611250200],
  ['202611260100_audit_client_address', m202611260100],
  ['202611260200_rate_limit_buckets', m202611260200],
  ['202611270100_api_tokens', m202611270100],
  ['202611270200_dnssec', m202611270200],
  ['202611270300_nsec3', m202611270300],
  ['202611280100_publish_isolation', m202611280100],
  ['202611282100_zone_mailbox_host_names', m202611282100],
  ['202611282200_nictool_permissions', m202611282200],
  ['202611282300_zone_delegations', m202611282300],
  ['202611290100_user_identities_any_subject', m202611290100],
  ['202611300500_tsig_keys', m202611300500],
  ['202612020100_secondary_zones', m202612020100],
  ['202612020200_zone_serial_history', m202612020200],
];

export const dnsMigrationProvider: MigrationProvider = {
  getMigrations: async () => Object.fromEntries(dnsMigrations),
};
