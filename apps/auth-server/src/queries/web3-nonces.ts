// SQL for auth.web3_nonces: the nonces GET /web3/nonce hands out for Sign in with Ethereum / Solana messages.
import type { Executor } from './users';

export async function insertWeb3Nonce(db: Executor, row: { nonce: string; created_at: Date; expires_at: Date }): Promise<void> {
  await db.insertInto('auth.web3_nonces').values(row).execute();
}

/** Uses a nonce: deletes it when it is unexpired and answers whether it was there (one statement, so used once). */
export async function consumeWeb3Nonce(db: Executor, nonce: string, now: Date): Promise<boolean> {
  const row = await db.deleteFrom('auth.web3_nonces').where('nonce', '=', nonce).where('expires_at', '>', now).returning('nonce').executeTakeFirst();
  return row !== undefined;
}
