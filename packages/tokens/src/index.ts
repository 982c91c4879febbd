export { TokenError, type TokenErrorCode } from './errors';
export { createJwtService, type JwtService, type CreateJwtServiceOptions } from './jwt/service';
export { loadKeys, JwtKeyConfigError, type JwtAlgorithm, type LoadedKey } from './jwt/keys';
export { randomToken, newRefreshToken, numericOtp, hashOneTimeToken, constantTimeEqual } from './one-time';
export { requireUser, type RequireUserOptions, type RequireUserFailure, type RequireUserMiddleware, type AuthContext } from './require-user';
