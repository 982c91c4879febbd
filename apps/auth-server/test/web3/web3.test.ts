// Sign in with Ethereum / Solana through the public @supabase/auth-js client (2.109.0, signInWithWeb3) with test
// wallets: an EIP-1193 provider backed by a fixed secp256k1 key (Hardhat's first account, whose address is public
// knowledge, so the recovery is checked against a value this code did not compute) and a Solana wallet with
// signMessage backed by a fixed ed25519 key. Every message carries a nonce from GET /web3/nonce.
import { AuthClient } from '@supabase/auth-js';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { base58 } from '@scure/base';
import { startTestServer, type TestServer } from '../helpers/server';
import { call } from '../helpers/http';
import { claimsOf } from '../helpers/users';

jest.setTimeout(60_000);

const SITE = 'https://app.example.com';
const LOGIN_URL = `${SITE}/login`;
const HARDHAT_KEY = Buffer.from('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'hex');
const HARDHAT_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // EIP-55
const OTHER_KEY = Buffer.from('59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', 'hex');
const SOLANA_SEED = Buffer.alloc(32, 7);
const OTHER_SOLANA_SEED = Buffer.alloc(32, 9);

let server: TestServer;
let off: TestServer;

beforeAll(async () => {
  [server, off] = await Promise.all([
    startTestServer({ env: { SITE_URL: SITE, EXTERNAL_WEB3_ETHEREUM_ENABLED: 'true', EXTERNAL_WEB3_SOLANA_ENABLED: 'true', RATE_LIMIT_WEB3: '1000' } }),
    startTestServer({ env: { SITE_URL: SITE, RATE_LIMIT_WEB3: '3' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), off?.close()]);
});

const client = (s: TestServer = server) =>
  new AuthClient({ url: `${s.url}/auth/v1`, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });

function personalSign(message: string, key: Uint8Array): string {
  const body = Buffer.from(message, 'utf8');
  const digest = keccak_256(Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, 'utf8'), body]));
  const sig = secp256k1.sign(digest, key);
  return `0x${sig.toCompactHex()}${(27 + sig.recovery).toString(16)}`;
}

/** An EIP-1193 wallet: `accounts` is what it claims, `key` is what it signs with. Records what it signed. */
function ethereumWallet(key: Uint8Array, account = HARDHAT_ADDRESS) {
  const signed: { message: string; signature: string }[] = [];
  return {
    signed,
    address: account,
    on: () => undefined,
    removeListener: () => undefined,
    async request({ method, params }: { method: string; params?: unknown }): Promise<unknown> {
      if (method === 'eth_requestAccounts') return [account];
      if (method === 'eth_chainId') return '0x1';
      if (method === 'personal_sign') {
        const [hex] = params as [string, string];
        const message = Buffer.from(hex.slice(2), 'hex').toString('utf8');
        const signature = personalSign(message, key);
        signed.push({ message, signature });
        return signature;
      }
      throw new Error(`unexpected wallet method ${method}`);
    },
  };
}

function solanaWallet(seed: Uint8Array, claimed?: Uint8Array) {
  const publicKey = claimed ?? ed25519.getPublicKey(seed);
  return {
    publicKey: { toBase58: () => base58.encode(publicKey) },
    signMessage: async (message: Uint8Array) => ed25519.sign(message, seed),
  };
}

async function nonce(s: TestServer = server): Promise<string> {
  const res = await call(s.url, 'GET', '/web3/nonce');
  expect(res.status).toBe(200);
  expect(res.body.nonce).toMatch(/^[0-9a-f]{32}$/);
  return res.body.nonce as string;
}

/** A SIWE message as EIP-4361 lays it out (auth-js lowercases the address; a message built here may not). */
function siwe(fields: { address: string; nonce?: string; issuedAt?: Date; domain?: string; uri?: string }): string {
  return [
    `${fields.domain ?? 'app.example.com'} wants you to sign in with your Ethereum account:`,
    fields.address,
    '',
    'Sign in to the test app',
    '',
    `URI: ${fields.uri ?? LOGIN_URL}`,
    'Version: 1',
    'Chain ID: 1',
    ...(fields.nonce ? [`Nonce: ${fields.nonce}`] : []),
    `Issued At: ${(fields.issuedAt ?? new Date()).toISOString()}`,
  ].join('\n');
}

const web3Token = (body: unknown, s: TestServer = server) => call(s.url, 'POST', '/token?grant_type=web3', { body });

describe('Sign in with Ethereum', () => {
  let userId: string;

  it('signs in with auth-js and a wallet, making a web3 identity for the lowercase address', async () => {
    const auth = client();
    const { data, error } = await auth.signInWithWeb3({
      chain: 'ethereum', wallet: ethereumWallet(HARDHAT_KEY), statement: 'Sign in to the test app',
      options: { url: LOGIN_URL, signInWithEthereum: { nonce: await nonce() } },
    });
    expect(error).toBeNull();
    const address = HARDHAT_ADDRESS.toLowerCase();
    const identity = data.user?.identities?.[0];
    expect(identity).toMatchObject({ provider: 'web3', id: `web3:ethereum:${address}` });
    expect(identity?.identity_data).toMatchObject({
      sub: `web3:ethereum:${address}`,
      custom_claims: { address, chain: 'ethereum', network: '1', domain: 'app.example.com', statement: 'Sign in to the test app' },
    });
    expect(data.user?.app_metadata).toMatchObject({ provider: 'web3', providers: ['web3'] });
    const claims = claimsOf(data.session?.access_token ?? '');
    expect(claims.amr).toEqual([expect.objectContaining({ method: 'web3' })]);
    expect(claims.aal).toBe('aal1');
    userId = data.user?.id ?? '';
    expect(userId).toBeTruthy();
  });

  it('signs the same user in again, also when the message spells the address with its EIP-55 checksum', async () => {
    const again = await client().signInWithWeb3({
      chain: 'ethereum', wallet: ethereumWallet(HARDHAT_KEY), options: { url: LOGIN_URL, signInWithEthereum: { nonce: await nonce() } },
    });
    expect(again.error).toBeNull();
    expect(again.data.user?.id).toBe(userId);

    const message = siwe({ address: HARDHAT_ADDRESS, nonce: await nonce() });
    const checksummed = await client().signInWithWeb3({ chain: 'ethereum', message, signature: personalSign(message, HARDHAT_KEY) as `0x${string}` });
    expect(checksummed.error).toBeNull();
    expect(checksummed.data.user?.id).toBe(userId);
    expect(checksummed.data.user?.identities).toHaveLength(1);
  });

  it('refuses a message signed by a key other than the address’s', async () => {
    const { data, error } = await client().signInWithWeb3({
      chain: 'ethereum', wallet: ethereumWallet(OTHER_KEY, HARDHAT_ADDRESS), options: { url: LOGIN_URL, signInWithEthereum: { nonce: await nonce() } },
    });
    expect(data.session).toBeNull();
    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Signature does not match address in message');
  });

  it('refuses a replayed message: its nonce was used by the first sign-in', async () => {
    const wallet = ethereumWallet(HARDHAT_KEY);
    const first = await client().signInWithWeb3({ chain: 'ethereum', wallet, options: { url: LOGIN_URL, signInWithEthereum: { nonce: await nonce() } } });
    expect(first.error).toBeNull();
    const { message, signature } = wallet.signed[0] as { message: string; signature: string };
    const replay = await web3Token({ chain: 'ethereum', message, signature });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({
      error: 'invalid_grant', error_description: "Signed Ethereum message's Nonce was not issued by this server, has expired or was already used",
    });
  });

  it('refuses a message without a nonce, or with one the server never issued or that expired', async () => {
    const bare = siwe({ address: HARDHAT_ADDRESS });
    const noNonce = await web3Token({ chain: 'ethereum', message: bare, signature: personalSign(bare, HARDHAT_KEY) });
    expect(noNonce.body.error_description).toBe('Signed Ethereum message has no Nonce: put one from GET /web3/nonce in the message');

    const invented = siwe({ address: HARDHAT_ADDRESS, nonce: 'a'.repeat(32) });
    const unknown = await web3Token({ chain: 'ethereum', message: invented, signature: personalSign(invented, HARDHAT_KEY) });
    expect(unknown.body.error).toBe('invalid_grant');

    const old = await nonce();
    server.clock.advance(601);
    try {
      const late = siwe({ address: HARDHAT_ADDRESS, nonce: old, issuedAt: server.clock.now() });
      const expired = await web3Token({ chain: 'ethereum', message: late, signature: personalSign(late, HARDHAT_KEY) });
      expect(expired.body.error_description).toBe("Signed Ethereum message's Nonce was not issued by this server, has expired or was already used");
    } finally {
      server.clock.advance(-601);
    }
  });

  it('refuses a stale message, and one issued in the future beyond the clock skew', async () => {
    const stale = await client().signInWithWeb3({
      chain: 'ethereum', wallet: ethereumWallet(HARDHAT_KEY),
      options: { url: LOGIN_URL, signInWithEthereum: { nonce: await nonce(), issuedAt: new Date(server.clock.now().getTime() - 11 * 60_000) } },
    });
    expect(stale.error?.message).toBe('Ethereum message was issued too long ago');

    const future = await client().signInWithWeb3({
      chain: 'ethereum', wallet: ethereumWallet(HARDHAT_KEY),
      options: { url: LOGIN_URL, signInWithEthereum: { nonce: await nonce(), issuedAt: new Date(server.clock.now().getTime() + 5 * 60_000) } },
    });
    expect(future.error?.message).toBe('Ethereum message was issued too far in the future');

    const expired = await client().signInWithWeb3({
      chain: 'ethereum', wallet: ethereumWallet(HARDHAT_KEY),
      options: { url: LOGIN_URL, signInWithEthereum: { nonce: await nonce(), expirationTime: new Date(server.clock.now().getTime() - 1000),
        issuedAt: new Date(server.clock.now().getTime() - 2000) } },
    });
    expect(expired.error?.message).toBe('Signed Ethereum message is expired');
  });

  it('refuses a message for another domain, and one whose domain does not match its URI', async () => {
    const other = await client().signInWithWeb3({
      chain: 'ethereum', wallet: ethereumWallet(HARDHAT_KEY), options: { url: 'https://evil.example.net/login', signInWithEthereum: { nonce: await nonce() } },
    });
    expect(other.error?.message).toBe('Signed Ethereum message is using URI which is not allowed on this server, message was signed for another app');

    const mixed = siwe({ address: HARDHAT_ADDRESS, nonce: await nonce(), domain: 'evil.example.net' });
    const res = await web3Token({ chain: 'ethereum', message: mixed, signature: personalSign(mixed, HARDHAT_KEY) });
    expect(res.body.error_description).toBe('Signed Ethereum message is using a Domain that does not match the one in URI which is not allowed on this server');

    const plain = siwe({ address: HARDHAT_ADDRESS, nonce: await nonce(), uri: 'http://app.example.com/login' });
    const http = await web3Token({ chain: 'ethereum', message: plain, signature: personalSign(plain, HARDHAT_KEY) });
    expect(http.body.error_description).toBe('Signed Ethereum message is using URI which does not use HTTPS');
  });

  it('answers malformed input with 400 validation_failed', async () => {
    const message = siwe({ address: HARDHAT_ADDRESS, nonce: await nonce() });
    const cases: [unknown, string][] = [
      [{ chain: 'ethereum', message: 'short', signature: '0x00' }, 'message is too short'],
      [{ chain: 'ethereum', message, signature: '0x1234' }, 'signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string'],
      [{ chain: 'ethereum', message: message.replace('Version: 1', 'Version: 2'), signature: `0x${'1'.repeat(130)}` },
        'siwe: Version value is not supported, expected 1 got "2"'],
      [{ chain: 'ethereum', message: message.replace(/Issued At: .*/, 'Issued At: yesterday'), signature: `0x${'1'.repeat(130)}` },
        'siwe: Issued At is not a valid ISO8601 timestamp'],
    ];
    for (const [body, msg] of cases) {
      const res = await web3Token(body);
      expect({ status: res.status, code: res.body.error_code, msg: res.body.msg }).toEqual({ status: 400, code: 'validation_failed', msg });
    }
    const garbage = await web3Token({ chain: 'ethereum', message, signature: `0x${'f'.repeat(130)}` });
    expect(garbage.body).toEqual({ error: 'invalid_grant', error_description: 'Signature does not match address in message' });
    const unsupported = await web3Token({ chain: 'bitcoin', message, signature: 'x' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error_code).toBe('web3_unsupported_chain');
  });
});

describe('races', () => {
  it('one signed message signs in once even when sent twice at the same moment', async () => {
    const message = siwe({ address: HARDHAT_ADDRESS, nonce: await nonce() });
    const signature = personalSign(message, HARDHAT_KEY);
    const answers = await Promise.all([1, 2, 3].map(() => web3Token({ chain: 'ethereum', message, signature })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
  });

  it('a new wallet signing in from two tabs at once gets one user', async () => {
    const key = Buffer.alloc(32, 3);
    const address = `0x${Buffer.from(keccak_256(secp256k1.getPublicKey(key, false).subarray(1)).subarray(12)).toString('hex')}`;
    const messages = await Promise.all([1, 2].map(async () => siwe({ address, nonce: await nonce() })));
    const answers = await Promise.all(messages.map((message) => web3Token({ chain: 'ethereum', message, signature: personalSign(message, key) })));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[0]?.body.user.id).toBe(answers[1]?.body.user.id);
  });
});

describe('Sign in with Solana', () => {
  it('signs in with auth-js and a signMessage wallet, the same user again; another signer is refused', async () => {
    const address = base58.encode(ed25519.getPublicKey(SOLANA_SEED));
    const first = await client().signInWithWeb3({
      chain: 'solana', wallet: solanaWallet(SOLANA_SEED), statement: 'Sign in to the test app',
      options: { url: LOGIN_URL, signInWithSolana: { nonce: await nonce(), chainId: 'solana:mainnet' } },
    });
    expect(first.error).toBeNull();
    expect(first.data.user?.identities?.[0]).toMatchObject({ provider: 'web3', id: `web3:solana:${address}` });
    expect(first.data.user?.identities?.[0]?.identity_data?.custom_claims).toMatchObject({ address, chain: 'solana', network: 'solana:mainnet' });
    expect(claimsOf(first.data.session?.access_token ?? '').amr).toEqual([expect.objectContaining({ method: 'web3' })]);

    const again = await client().signInWithWeb3({ chain: 'solana', wallet: solanaWallet(SOLANA_SEED), options: { url: LOGIN_URL, signInWithSolana: { nonce: await nonce() } } });
    expect(again.error).toBeNull();
    expect(again.data.user?.id).toBe(first.data.user?.id);

    const forged = await client().signInWithWeb3({
      chain: 'solana', wallet: solanaWallet(OTHER_SOLANA_SEED, ed25519.getPublicKey(SOLANA_SEED)), options: { url: LOGIN_URL, signInWithSolana: { nonce: await nonce() } },
    });
    expect(forged.error?.message).toBe('Signature does not match address in message');

    const stale = await client().signInWithWeb3({
      chain: 'solana', wallet: solanaWallet(SOLANA_SEED),
      options: { url: LOGIN_URL, signInWithSolana: { nonce: await nonce(), issuedAt: new Date(server.clock.now().getTime() - 11 * 60_000).toISOString() } },
    });
    expect(stale.error?.message).toBe('Solana message was issued too long ago');

    const elsewhere = await client().signInWithWeb3({
      chain: 'solana', wallet: solanaWallet(SOLANA_SEED), options: { url: 'https://evil.example.net/', signInWithSolana: { nonce: await nonce() } },
    });
    expect(elsewhere.error?.message).toBe('Signed Solana message is using URI which is not allowed on this server, message was signed for another app');
  });
});

describe('Solana signature forms', () => {
  const seed = Buffer.alloc(32, 5);
  const publicKey = ed25519.getPublicKey(seed);
  const address = base58.encode(publicKey);
  const siws = (n: string) => [
    'app.example.com wants you to sign in with your Solana account:', address, '', 'Version: 1', `URI: ${LOGIN_URL}`,
    `Issued At: ${server.clock.now().toISOString()}`, `Nonce: ${n}`,
  ].join('\n');

  it('takes a padded standard-base64 signature', async () => {
    const message = siws(await nonce());
    const signature = Buffer.from(ed25519.sign(Buffer.from(message), seed)).toString('base64');
    expect(signature).toHaveLength(88);
    const res = await web3Token({ chain: 'solana', message, signature });
    expect(res.status).toBe(200);
    expect(res.body.user.identities[0].id).toBe(`web3:solana:${address}`);
  });

  it('takes a signature over Solana’s off-chain message envelope (what a Ledger signs)', async () => {
    const message = siws(await nonce());
    const body = Buffer.from(message);
    const domain = Buffer.alloc(32);
    domain.write('app.example.com');
    const length = Buffer.alloc(2);
    length.writeUInt16LE(body.length);
    const envelope = Buffer.concat([Buffer.from('\xffsolana offchain', 'latin1'), Buffer.from([0]), domain, Buffer.from([0, 1]), publicKey, length, body]);
    const { data, error } = await client().signInWithWeb3({ chain: 'solana', message, signature: ed25519.sign(envelope, seed) });
    expect(error).toBeNull();
    expect(data.user?.identities?.[0]?.id).toBe(`web3:solana:${address}`);
  });
});

describe('settings', () => {
  it('answers GoTrue’s web3_provider_disabled when off, and counts requests against RATE_LIMIT_WEB3', async () => {
    const { error } = await client(off).signInWithWeb3({ chain: 'ethereum', wallet: ethereumWallet(HARDHAT_KEY), options: { url: LOGIN_URL } });
    expect(error?.code).toBe('web3_provider_disabled');
    expect(error?.message).toBe('Web3 provider is disabled');
    expect(error?.status).toBe(422);
    const noNonce = await call(off.url, 'GET', '/web3/nonce');
    expect(noNonce.body.error_code).toBe('web3_provider_disabled');
    // Three requests went through (RATE_LIMIT_WEB3=3); the fourth is over the limit.
    await call(off.url, 'GET', '/web3/nonce');
    const limited = await web3Token({ chain: 'ethereum', message: 'x', signature: 'y' }, off);
    expect(limited.status).toBe(429);
    expect(limited.body.error_code).toBe('over_request_rate_limit');
  });

  it('names the chain that is off when only the other one is on', async () => {
    const ethOnly = await startTestServer({ env: { SITE_URL: SITE, EXTERNAL_WEB3_ETHEREUM_ENABLED: 'true' } });
    try {
      const res = await call(ethOnly.url, 'POST', '/token?grant_type=web3', { body: { chain: 'solana', message: 'x', signature: 'y' } });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error_code: 'web3_provider_disabled', msg: 'Solana Web3 provider is disabled' });
    } finally {
      await ethOnly.close();
    }
  });
});
