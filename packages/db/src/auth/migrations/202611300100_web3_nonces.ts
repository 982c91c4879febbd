// Sign in with Ethereum / Solana (issue 41): the nonces this server hands out for the signed messages. GoTrue keeps
// none, so a message it accepted once is accepted again until its validity window ends; here a message's nonce must
// be a row of this table, and the sign-in deletes it in the transaction that makes the session (used once).
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    `create table ${t('web3_nonces')} (
      nonce text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      constraint ${n('web3_nonces_pkey')} primary key (nonce),
      constraint ${n('web3_nonces_nonce_format')} check (nonce ~ '^[A-Za-z0-9]{16,64}$')
    )`,
    `create index ${n('web3_nonces_expires_at_idx')} on ${t('web3_nonces')} (expires_at)`,
  ]);
}
