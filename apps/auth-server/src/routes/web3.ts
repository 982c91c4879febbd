// Sign in with Ethereum / Solana: POST /token?grant_type=web3 {chain, message, signature} (a grant in the per-app
// table) and GET /web3/nonce, the nonce a message must carry (Keyzone's; see services/web3/sign-in.ts).
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { issueWeb3Nonce, web3SignIn } from '../services/web3/sign-in';
import { optionalString } from './schemas';
import type { GrantHandler } from './token';

const Web3Body = z.object({ chain: optionalString, message: optionalString, signature: optionalString });

export const web3Grant: GrantHandler = async (deps, body, req) => {
  const input = validate(Web3Body, body);
  return web3SignIn(deps, { chain: input.chain ?? '', message: input.message ?? '', signature: input.signature ?? '', client: clientInfo(deps, req) });
};

export function web3Nonce(deps: Deps): RequestHandler {
  return async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(await issueWeb3Nonce(deps));
  };
}
