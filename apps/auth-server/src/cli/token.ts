// `node dist/main.js token --role service_role [--sub <id>] [--exp <seconds>]`: prints a JWT signed with the
// configured key (JWT_SECRET or JWT_KEYS), for the admin API and for scripts. The admin walk-through uses it.
import { parseArgs } from 'node:util';

export const TOKEN_USAGE = 'usage: main.js token --role <role> [--sub <subject>] [--exp <seconds, default 3600>]';

export interface TokenArgs {
  role: string;
  sub: string | undefined;
  expiresInSeconds: number;
}

export function parseTokenArgs(args: string[]): TokenArgs {
  let values: { role?: string; sub?: string; exp?: string };
  try {
    ({ values } = parseArgs({ args, strict: true, options: { role: { type: 'string' }, sub: { type: 'string' }, exp: { type: 'string' } } }));
  } catch (err) {
    throw new Error(`${TOKEN_USAGE}\n  ${(err as Error).message}`);
  }
  if (!values.role || !/^[A-Za-z0-9_-]{1,64}$/.test(values.role)) throw new Error(`${TOKEN_USAGE}\n  --role: a role name is required`);
  const exp = values.exp === undefined ? 3600 : Number(values.exp);
  if (!Number.isInteger(exp) || exp < 1 || exp > 10 * 365 * 86400) throw new Error(`${TOKEN_USAGE}\n  --exp: whole seconds from 1 to ten years`);
  return { role: values.role, sub: values.sub, expiresInSeconds: exp };
}
