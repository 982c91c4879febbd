import type { Kysely } from 'kysely';
import type { DnsDatabase } from '@keyzone/db';

/** The executor every query takes first: the pool or a transaction (a Transaction is a Kysely). */
export type Db = Kysely<DnsDatabase>;
