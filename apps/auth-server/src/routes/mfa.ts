// MFA routes (reference §1.4.15): POST /factors, POST /factors/<id>/challenge, POST /factors/<id>/verify,
// DELETE /factors/<id>, and the admin's GET/PUT/DELETE /admin/users/<id>/factors[/<factor_id>].
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { signedInCaller } from '../http/auth';
import { validate } from '../http/validate';
import { deleteFactorForAdmin, listFactorsForAdmin, updateFactorForAdmin } from '../services/mfa/admin-factors';
import { challengeFactor, enrollFactor, unenrollFactor, verifyFactor } from '../services/mfa/factors';
import { optionalString } from './schemas';
import { isUuid } from '../uuid';



/** A path id that is not a UUID names no factor (and must not reach a uuid column). */
function idParam(req: Request, name: string): string {
  const id = String(req.params[name] ?? '');
  if (!isUuid(id)) throw new ApiError(404, ErrorCode.mfa_factor_not_found, `Factor ${id} not found`);
  return id;
}

const EnrollBody = z.object({ factor_type: optionalString, friendly_name: optionalString, issuer: optionalString, phone: optionalString });
// auth-js sends the relying party it uses (rpId, rpOrigins) with a WebAuthn challenge and verify.
const RelyingPartyFields = { rpId: z.string().optional(), rpOrigins: z.array(z.string()).optional() };
const ChallengeBody = z.object({ channel: z.enum(['sms', 'whatsapp']).nullish(), webauthn: z.object(RelyingPartyFields).nullish() });
const VerifyBody = z.object({
  challenge_id: optionalString,
  code: optionalString,
  webauthn: z.object({ ...RelyingPartyFields, type: z.enum(['create', 'request']), credential_response: z.record(z.string(), z.unknown()) }).nullish(),
});
const AdminFactorBody = z.object({ friendly_name: optionalString, phone: optionalString });

export function enroll(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(EnrollBody, req.body);
    res.json(await enrollFactor(deps, signedInCaller(deps, req), {
      factorType: body.factor_type ?? '', friendlyName: body.friendly_name ?? undefined, issuer: body.issuer ?? undefined, phone: body.phone ?? undefined,
    }));
  };
}

export function challenge(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(ChallengeBody, req.body);
    res.json(await challengeFactor(deps, signedInCaller(deps, req), {
      factorId: idParam(req, 'factor_id'), channel: body.channel ?? undefined, webauthn: body.webauthn ?? undefined,
    }));
  };
}

export function verify(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(VerifyBody, req.body);
    if (!body.challenge_id || !isUuid(body.challenge_id)) throw new ApiError(400, ErrorCode.validation_failed, 'challenge_id must be a UUID');
    res.json(await verifyFactor(deps, signedInCaller(deps, req), {
      factorId: idParam(req, 'factor_id'), challengeId: body.challenge_id, code: body.code, webauthn: body.webauthn ?? undefined,
    }));
  };
}

export function unenroll(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await unenrollFactor(deps, signedInCaller(deps, req), idParam(req, 'factor_id')));
  };
}

function userIdParam(req: Request): string {
  const id = String(req.params.user_id ?? '');
  if (!isUuid(id)) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
  return id;
}

export function adminListFactors(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await listFactorsForAdmin(deps, userIdParam(req)));
  };
}

export function adminUpdateFactor(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(AdminFactorBody, req.body);
    res.json(await updateFactorForAdmin(deps, {
      userId: userIdParam(req), factorId: idParam(req, 'factor_id'), friendlyName: body.friendly_name ?? undefined, phone: body.phone ?? undefined,
    }));
  };
}

export function adminDeleteFactor(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await deleteFactorForAdmin(deps, { userId: userIdParam(req), factorId: idParam(req, 'factor_id') }));
  };
}
