export { connect, defaultDatabaseUrl, parseDatabaseUrl, poolerHint, withAuthNamespace } from './connect';
export { executeNamed, poolStats, type QueryEvent } from './prepared-statements';
export { PGliteFolderInUseError } from './pglite-folder-lock';
export type { ConnectOptions, ParsedDatabaseUrl } from './connect';
export { migrateAuth, migrateDns, MigrationFailedError } from './migrate';
export { waitForDatabase, type WaitForDatabaseOptions } from './wait';
export { AuthNamespacePlugin } from './namespace-plugin';
export {
  isDatabaseUnavailable,
  databaseProblem,
  isForeignKeyViolation,
  isSerializationOrLockError,
  isUniqueViolation,
  pgErrorCode,
  pgErrorConstraint,
} from './errors';
export type * from './auth/schema';
export type { DnsDatabase } from './dns/schema';
export { pruneBuckets, takeBucketTokens, type BucketParams } from './token-buckets';
