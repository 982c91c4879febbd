// GoTrue's answers for features this server does not offer, so clients that probe for them (auth-js's
// integration suite does) get the codes they handle instead of 404 or unsupported_grant_type: Web3
// sign-in.
import { ApiError, ErrorCode } from '../errors';
import type { GrantHandler } from './token';

export const web3Grant: GrantHandler = async () => {
  throw new ApiError(422, ErrorCode.web3_provider_disabled, 'Web3 provider is disabled');
};
