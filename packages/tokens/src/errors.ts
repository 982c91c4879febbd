/** Why a token was refused. Callers map every code to one public message (e.g. "invalid JWT"). */
export type TokenErrorCode =
  | 'malformed'
  | 'alg_not_allowed'
  | 'unknown_kid'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'claim_invalid';

/** The one error type thrown by JwtService.verify. The message is short and never contains key material. */
export class TokenError extends Error {
  override readonly name = 'TokenError';

  constructor(
    readonly code: TokenErrorCode,
    message: string,
  ) {
    super(message);
  }
}
