// The typed Kysely handle the queries, the mail outbox and deps.ts share (kept apart from deps.ts so that
// nothing below it imports deps.ts back).
import type { AuthDatabase } from '@keyzone/db';
import type { Kysely } from 'kysely';

export type AuthDb = Kysely<AuthDatabase>;
