import { createSecretKey, type KeyObject } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { toTokenError } from './jwt/jose-errors';

/** What requireUser leaves on the request for the handlers after it. */
export interface AuthContext {
  /** The verified JWT claims (sub, role, email, session_id, ...). */
  claims: Record<string, unknown>;
  /** The raw bearer token, e.g. to call the auth server on the user's behalf. */
  token: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by @keyzone/tokens requireUser() once the bearer token is verified. */
      auth?: AuthContext;
    }
  }
}

export type RequireUserOptions = ({ secret: string } | { jwksUrl: string }) & {
  /** Expected aud claim (GoTrue: "authenticated"). */
  audience?: string;
  /** Expected iss claim (the auth server's JWT_ISSUER). */
  issuer?: string;
  /** Clock for exp/nbf checks; tests move time with it. */
  clock?: () => Date;
  /** JWKS cache lifetime in ms (default 10 minutes, as auth-js does). */
  jwksCacheMaxAgeMs?: number;
  /** Minimum ms between JWKS refetches triggered by an unknown kid (default 30 s). */
  jwksCooldownMs?: number;
  /**
   * Renders a refusal in the app's own error shape instead of the default OAuth-style JSON: `status` is 401 for
   * a missing or bad token, 503 when the signing keys cannot be fetched.
   */
  onFailure?: (failure: RequireUserFailure, req: Request, res: Response, next: NextFunction) => void;
};

export interface RequireUserFailure {
  status: 401 | 503;
  error: 'invalid_token' | 'temporarily_unavailable';
  description: string;
}

const ASYMMETRIC = ['RS256', 'ES256', 'EdDSA'];

/**
 * Express middleware for internal apps that accept Keyzone access tokens: verifies
 * `Authorization: Bearer <jwt>` with the shared HS256 secret or against the auth server's JWKS
 * (fetched once, cached, refetched at most once per cooldown when an unknown kid shows up).
 * Success: req.auth = { claims, token }. Failure: 401 {error: "invalid_token", error_description}
 * with WWW-Authenticate: Bearer; 503 {error: "temporarily_unavailable"} when the JWKS cannot be fetched.
 */
export type RequireUserMiddleware = RequestHandler & {
  /**
   * The same check for a token that did not come in the Authorization header (e.g. a token exchanged for a
   * cookie session): its claims, or the failure the middleware would have answered.
   */
  verifyToken(token: string): Promise<{ claims: Record<string, unknown> } | { failure: RequireUserFailure }>;
};

export function requireUser(options: RequireUserOptions): RequireUserMiddleware {
  let key: KeyObject | JWTVerifyGetKey;
  let algorithms: string[];
  if ('secret' in options && options.secret) {
    key = createSecretKey(Buffer.from(options.secret, 'utf8'));
    algorithms = ['HS256'];
  } else if ('jwksUrl' in options && options.jwksUrl) {
    const url = new URL(options.jwksUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('requireUser: jwksUrl must be http(s)');
    key = createRemoteJWKSet(url, {
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 10 * 60 * 1000,
      cooldownDuration: options.jwksCooldownMs ?? 30 * 1000,
      timeoutDuration: 5000,
    });
    algorithms = ASYMMETRIC;
  } else {
    throw new Error('requireUser: pass { secret } or { jwksUrl }');
  }
  const clock = options.clock ?? (() => new Date());

  async function verify(token: string): Promise<Record<string, unknown>> {
    const { payload } = await jwtVerify(token, key as KeyObject, {
      algorithms,
      audience: options.audience,
      issuer: options.issuer,
      currentDate: clock(),
      requiredClaims: ['exp'],
    });
    return payload as Record<string, unknown>;
  }

  async function verifyToken(token: string): Promise<{ claims: Record<string, unknown> } | { failure: RequireUserFailure }> {
    try {
      return { claims: await verify(token) };
    } catch (err) {
      if (isKeySourceFailure(err)) return { failure: { status: 503, error: 'temporarily_unavailable', description: 'signing keys are unavailable' } };
      return { failure: { status: 401, error: 'invalid_token', description: toTokenError(err).message } };
    }
  }

  function requireUserMiddleware(req: Request, res: Response, next: NextFunction): void {
    const fail = (failure: RequireUserFailure): void => {
      if (options.onFailure) options.onFailure(failure, req, res, next);
      else reject(res, failure.status, failure.error, failure.description, failure.status === 401 && failure.description !== MISSING);
    };
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      fail({ status: 401, error: 'invalid_token', description: MISSING });
      return;
    }
    void verifyToken(token).then((result) => {
      if ('failure' in result) {
        fail(result.failure);
        return;
      }
      req.auth = { claims: result.claims, token };
      next();
    });
  }
  return Object.assign(requireUserMiddleware, { verifyToken });
}

const MISSING = 'missing bearer token';

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}

/** The JWKS endpoint did not answer usefully: a server-side problem, not a bad token. */
function isKeySourceFailure(err: unknown): boolean {
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return true;
  // jose reports a non-200 or non-JSON JWKS response with the generic JOSEError class itself.
  if (err instanceof errors.JOSEError) return err.constructor === errors.JOSEError;
  // Network errors from the fetch carry a system code (ECONNREFUSED, ENOTFOUND, ECONNRESET...).
  // (Duck-typed: such errors may come from another realm, where instanceof Error is false.)
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string';
}

function reject(res: Response, status: number, error: string, description: string, describeInHeader: boolean): void {
  const challenge = describeInHeader
    ? `Bearer error="${error}", error_description="${description.replace(/["\\]/g, '')}"`
    : 'Bearer';
  res.status(status).set('WWW-Authenticate', challenge).set('Cache-Control', 'no-store').json({ error, error_description: description });
}
