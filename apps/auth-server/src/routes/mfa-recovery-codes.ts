// MFA recovery codes (auth-js 2.119's mfa.recoveryCodes): GET/POST/DELETE /factors/recovery-codes,
// POST /factors/recovery-codes/regenerate and /verify. The logic is services/mfa/recovery-codes.ts.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { signedInCaller } from '../http/auth';
import { validate } from '../http/validate';
import {
  deleteRecoveryCodesFactor, generateRecoveryCodes, recoveryCodesStatus, regenerateRecoveryCodes, verifyRecoveryCode,
} from '../services/mfa/recovery-codes';
import { optionalString } from './schemas';

const GenerateBody = z.object({ friendly_name: optionalString }).nullish();
const VerifyBody = z.object({ code: optionalString });

export function recoveryCodesStatusRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await recoveryCodesStatus(deps, signedInCaller(deps, req)));
  };
}

export function generateRecoveryCodesRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    // auth-js sends no body unless a name is given.
    const body = validate(GenerateBody, req.body ?? undefined);
    res.set('Cache-Control', 'no-store');
    res.json(await generateRecoveryCodes(deps, signedInCaller(deps, req), { friendlyName: body?.friendly_name }));
  };
}

export function regenerateRecoveryCodesRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(await regenerateRecoveryCodes(deps, signedInCaller(deps, req)));
  };
}

export function verifyRecoveryCodeRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(VerifyBody, req.body);
    res.json(await verifyRecoveryCode(deps, signedInCaller(deps, req), body.code));
  };
}

export function deleteRecoveryCodesRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await deleteRecoveryCodesFactor(deps, signedInCaller(deps, req)));
  };
}
