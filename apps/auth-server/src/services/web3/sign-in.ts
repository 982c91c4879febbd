// POST /token?grant_type=web3 {chain, message, signature} (GoTrue's web3.go): a wallet's signed EIP-4361 / SIWS
// message signs its address in. The identity is provider "web3", id "web3:<chain>:<address>", and the session's amr
// is "web3". GoTrue's checks and answers, in its order, plus two of Keyzone's:
//   - the message's Nonce must be one GET /web3/nonce issued, unexpired and unused; the sign-in deletes it in its
//     transaction, so a signed message signs in once (GoTrue accepts it again until Issued At + the validity window);
//   - an Ethereum address is kept lowercase in the identity id, so its EIP-55 and lowercase spellings are one user;
//   - Issued At may be at most ISSUED_AT_SKEW_SECONDS ahead of the server's clock (GoTrue: the whole window), and
//     Expiration Time is checked whether or not Not Before is given.
import { randomBytes } from 'node:crypto';
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, OAuthError } from '../../errors';
import { findIdentitiesByUserId } from '../../queries/identities';
import { setLastSignIn } from '../../queries/users';
import { consumeWeb3Nonce, insertWeb3Nonce } from '../../queries/web3-nonces';
import type { TokenResponseJson } from '../../serialize';
import { resolveExternalUser } from '../external/accounts';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { redirectPolicyFor } from '../platform/redirects';
import { tokenResponse } from '../sessions/access-token';
import { AmrMethod, createSession } from '../sessions/sessions';
import { MessageError, parseSignInMessage, type SignInMessage, type Web3Chain } from './message';
import { ethereumSignatureMatches, solanaSignatureMatches } from './signatures';

export const WEB3_PROVIDER = 'web3';
/** How far ahead of this server's clock a wallet's clock may be. */
export const ISSUED_AT_SKEW_SECONDS = 60;

const CHAIN_NAME: Record<Web3Chain, string> = { ethereum: 'Ethereum', solana: 'Solana' };

export interface Web3SignInInput {
  chain: string;
  message: string;
  signature: string;
  client: ClientInfo;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
const validation = (message: string) => new ApiError(400, ErrorCode.validation_failed, message);

/** The chain, when the server has it switched on (GoTrue's answers otherwise). */
function enabledChain(deps: Pick<Deps, 'config'>, chain: string): Web3Chain {
  const { ethereum, solana } = deps.config.external.web3;
  if (!ethereum.enabled && !solana.enabled) throw new ApiError(422, ErrorCode.web3_provider_disabled, 'Web3 provider is disabled');
  if (chain !== 'ethereum' && chain !== 'solana') throw new ApiError(400, ErrorCode.web3_unsupported_chain, 'Unsupported chain');
  if (!deps.config.external.web3[chain].enabled) throw new ApiError(422, ErrorCode.web3_provider_disabled, `${CHAIN_NAME[chain]} Web3 provider is disabled`);
  return chain;
}

function signatureMatches(chain: Web3Chain, message: SignInMessage, signature: string): boolean {
  if (chain === 'ethereum') {
    if ((signature.startsWith('0x') ? signature.slice(2) : signature).length !== 130) {
      throw validation('signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string');
    }
    return ethereumSignatureMatches(message.raw, signature, message.address);
  }
  if (signature.length !== 86 && signature.length !== 88) throw validation('signature must be 64 bytes encoded as base64 with or without padding');
  const base64url = signature.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  if (!/^[A-Za-z0-9_-]{86}$/.test(base64url)) throw validation('signature does not contain valid base64 characters');
  return solanaSignatureMatches(message.raw, Buffer.from(base64url, 'base64url'), message.address, message.domain);
}

/** The message is for this app (SITE_URL or URI_ALLOW_LIST) and in its validity window: GoTrue's rules and texts. */
function checkAudienceAndTime(deps: Pick<Deps, 'config' | 'clock'>, chain: Web3Chain, message: SignInMessage): void {
  const name = CHAIN_NAME[chain];
  const policy = redirectPolicyFor(deps.config);
  const { uri } = message;
  const localhost = uri.hostname === 'localhost';
  if (uri.protocol !== 'https:' && !localhost) throw invalidGrant(`Signed ${name} message is using URI which does not use HTTPS`);
  if (!policy.isAllowed(uri.href)) {
    throw invalidGrant(`Signed ${name} message is using URI which is not allowed on this server, message was signed for another app`);
  }
  if (!localhost && (uri.host !== message.domain || !policy.isAllowed(`https://${message.domain}/`))) {
    throw invalidGrant(`Signed ${name} message is using a Domain that does not match the one in URI which is not allowed on this server`);
  }
  const now = deps.clock.now().getTime();
  if (message.notBefore && now < message.notBefore.getTime()) throw invalidGrant(`Signed ${name} message becomes valid in the future`);
  if (message.expirationTime && now > message.expirationTime.getTime()) throw invalidGrant(`Signed ${name} message is expired`);
  const window = deps.config.external.web3[chain].maximumValidityDuration * 1000;
  const issuedAt = message.issuedAt.getTime();
  if (now > issuedAt + window) throw invalidGrant(`${name} message was issued too long ago`);
  if (now < issuedAt - Math.min(window, ISSUED_AT_SKEW_SECONDS * 1000)) throw invalidGrant(`${name} message was issued too far in the future`);
}

export async function web3SignIn(deps: Deps, input: Web3SignInInput): Promise<TokenResponseJson> {
  const chain = enabledChain(deps, input.chain);
  if (input.message.length < 64) throw validation('message is too short');
  if (input.message.length > 20 * 1024) throw validation('message must not exceed 20KB');
  let message: SignInMessage;
  try {
    message = parseSignInMessage(chain, input.message);
  } catch (err) {
    if (err instanceof MessageError) throw validation(err.message);
    throw err;
  }
  if (!signatureMatches(chain, message, input.signature)) throw invalidGrant('Signature does not match address in message');
  checkAudienceAndTime(deps, chain, message);
  const name = CHAIN_NAME[chain];
  const nonce = message.nonce;
  if (!nonce) throw invalidGrant(`Signed ${name} message has no Nonce: put one from GET /web3/nonce in the message`);

  const address = chain === 'ethereum' ? message.address.toLowerCase() : message.address;
  const providerId = `${WEB3_PROVIDER}:${chain}:${address}`;
  const customClaims = { address, chain, network: message.chainId ?? '', domain: message.domain, statement: message.statement ?? '' };
  const now = deps.clock.now();
  const signIn = () => deps.db.transaction().execute(async (tx) => {
    if (!(await consumeWeb3Nonce(tx, nonce, now))) {
      throw invalidGrant(`Signed ${name} message's Nonce was not issued by this server, has expired or was already used`);
    }
    const outcome = await resolveExternalUser(deps, tx, {
      provider: WEB3_PROVIDER,
      profile: { providerId, emailVerified: false, customClaims },
      emailOptional: true,
      client: input.client,
      redirectTo: deps.config.siteUrl,
    });
    const issued = await createSession(tx, { user: outcome.user, method: AmrMethod.web3, client: input.client, at: now });
    await setLastSignIn(tx, outcome.user.id, now);
    await audit(tx, {
      actor: outcome.user, action: AuditAction.login, client: input.client, at: now,
      traits: { provider: WEB3_PROVIDER, chain, network: message.chainId ?? '', address, domain: message.domain, uri: message.uri.href },
    });
    return { user: { ...outcome.user, last_sign_in_at: now }, issued };
  });
  // A new wallet signing in twice at once: both find no identity and one insert loses. Its transaction (nonce
  // included) rolled back, so it runs again and finds the identity the other made.
  const result = await signIn().catch((err: unknown) => {
    if (isUniqueViolation(err)) return signIn();
    throw err;
  });
  return tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: result.issued.session,
    amr: result.issued.amr,
    refreshToken: result.issued.refreshToken,
  });
}

/** GET /web3/nonce: a random alphanumeric nonce (128 bits, EIP-4361's "at least 8 alphanumeric"), usable once. */
export async function issueWeb3Nonce(deps: Pick<Deps, 'config' | 'clock' | 'db'>): Promise<{ nonce: string; expires_at: number }> {
  const { ethereum, solana } = deps.config.external.web3;
  if (!ethereum.enabled && !solana.enabled) throw new ApiError(422, ErrorCode.web3_provider_disabled, 'Web3 provider is disabled');
  const lifetime = Math.max(ethereum.enabled ? ethereum.maximumValidityDuration : 0, solana.enabled ? solana.maximumValidityDuration : 0);
  const now = deps.clock.now();
  const nonce = randomBytes(16).toString('hex');
  const expiresAt = new Date(now.getTime() + lifetime * 1000);
  await insertWeb3Nonce(deps.db, { nonce, created_at: now, expires_at: expiresAt });
  return { nonce, expires_at: Math.floor(expiresAt.getTime() / 1000) };
}
