// The text a wallet signs to sign in: EIP-4361 "Sign in with Ethereum" and its Solana twin (SIWS), parsed by
// GoTrue's rules (internal/utilities/siwe, siws): a header naming the domain, the address, a blank line, an optional
// statement, then "Key: value" fields (URI, Version 1, Chain ID, Nonce, Issued At required; Expiration Time, Not
// Before, Request ID, Resources). Parse errors are GoTrue's texts; the route answers them as 400 validation_failed.

export type Web3Chain = 'ethereum' | 'solana';

export interface SignInMessage {
  raw: string;
  domain: string;
  address: string;
  statement: string | undefined;
  uri: URL;
  version: string;
  chainId: string | undefined;
  nonce: string | undefined;
  issuedAt: Date;
  expirationTime: Date | undefined;
  notBefore: Date | undefined;
  requestId: string | undefined;
  resources: string[];
}

export class MessageError extends Error {}

const HEADER_SUFFIX: Record<Web3Chain, string> = {
  ethereum: ' wants you to sign in with your Ethereum account:',
  solana: ' wants you to sign in with your Solana account:',
};
const PREFIX: Record<Web3Chain, string> = { ethereum: 'siwe', solana: 'siws' };
const ADDRESS: Record<Web3Chain, RegExp> = { ethereum: /^0x[a-fA-F0-9]{40}$/, solana: /^[a-zA-Z0-9]{32,44}$/ };
const DOMAIN = /^(localhost|(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,})(?::\d{1,5})?$/;
const SOLANA_NETWORK = /^solana:(main|dev|test|local)net$/;
/** RFC 3339 with a zone, as Go's time.Parse(time.RFC3339) takes it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function timestamp(value: string): Date | undefined {
  if (!RFC3339.test(value)) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** An absolute URI (Go's url.ParseRequestURI): a scheme and something after it. */
function absoluteUri(value: string): URL | undefined {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(value)) return undefined;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function validChainId(chain: Web3Chain, value: string): boolean {
  if (chain === 'solana') return value === '' || SOLANA_NETWORK.test(value);
  // EIP-155: a positive integer.
  return /^\d{1,18}$/.test(value) && Number(value) > 0;
}

export function parseSignInMessage(chain: Web3Chain, raw: string): SignInMessage {
  const p = PREFIX[chain];
  const fail = (message: string): never => {
    throw new MessageError(`${p}: ${message}`);
  };
  const lines = raw.split('\n');
  if (lines.length < 6) fail('message needs at least 6 lines');
  const header = lines[0] as string;
  if (!header.endsWith(HEADER_SUFFIX[chain])) fail(`message first line does not end in "${HEADER_SUFFIX[chain]}"`);
  const domain = header.slice(0, -HEADER_SUFFIX[chain].length).trim();
  if (!DOMAIN.test(domain)) fail('domain in first line of message is not valid');
  const address = (lines[1] as string).trim();
  if (!ADDRESS[chain].test(address)) fail(`wallet address is not a valid ${chain === 'ethereum' ? 'Ethereum' : 'Solana'} address`);
  if (lines[2] !== '') fail('third line must be empty');

  let statement: string | undefined;
  let start = 3;
  if (lines[3] !== '' && lines[4] === '') {
    statement = lines[3];
    start = 5;
  }
  const fields: Partial<Record<string, string>> = {};
  const resources: string[] = [];
  let inResources = false;
  for (let i = start; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (inResources) {
      if (line.startsWith('- ')) {
        const resource = line.slice(2).trim();
        if (!absoluteUri(resource)) fail(`Resource at position ${resources.length} has invalid URI`);
        resources.push(resource);
        continue;
      }
      inResources = false;
    }
    if (line === 'Resources:') {
      inResources = true;
      continue;
    }
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon < 0) fail(`encountered unparsable line at index ${i}`);
    const key = line.slice(0, colon);
    // A field given twice is ambiguous (which one did the wallet show?): refused, where GoTrue keeps the last.
    if (fields[key] !== undefined && ['URI', 'Version', 'Chain ID', 'Nonce', 'Issued At', 'Expiration Time', 'Not Before'].includes(key)) {
      fail(`${key} is given more than once`);
    }
    fields[key] = line.slice(colon + 1).trim();
  }

  let uri: URL | undefined;
  if (fields.URI !== undefined) uri = absoluteUri(fields.URI) ?? fail('URI is not valid');
  const chainId = fields['Chain ID'];
  if (chainId !== undefined && !validChainId(chain, chainId)) fail('Chain ID is not valid');
  if (chain === 'ethereum' && chainId === undefined) fail('Chain ID is not valid');
  const time = (name: string): Date | undefined => {
    const value = fields[name];
    if (value === undefined) return undefined;
    return timestamp(value) ?? fail(`${name} is not a valid ISO8601 timestamp`);
  };
  const issuedAt = time('Issued At');
  const expirationTime = time('Expiration Time');
  const notBefore = time('Not Before');
  if (fields.Version !== '1') fail(`Version value is not supported, expected 1 got "${fields.Version ?? ''}"`);
  if (!issuedAt) return fail('Issued At is not specified');
  if (!uri) return fail('URI is not specified');
  if (expirationTime && issuedAt > expirationTime) fail('Issued At is after Expiration Time');
  if (notBefore && expirationTime && notBefore > expirationTime) fail('Not Before is after Expiration Time');
  return {
    raw, domain, address, statement, uri, version: '1', chainId: chainId || undefined, nonce: fields.Nonce || undefined,
    issuedAt, expirationTime, notBefore, requestId: fields['Request ID'], resources,
  };
}
