// Passkeys (issue 31; PASSKEY_ENABLED, else 404 passkey_disabled): the routes auth-js 2.109's passkey API calls.
//   POST /passkeys/registration/options, /registration/verify   a signed-in user registers one
//   POST /passkeys/authentication/options, /authentication/verify   signing in with one
//   GET /passkeys, PATCH and DELETE /passkeys/<id>            the user's own
//   GET /admin/users/<id>/passkeys, DELETE …/passkeys/<id>    an admin's view
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { signedInCaller, userOf } from '../http/auth';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { finishPasskeySignIn, startPasskeySignIn } from '../services/webauthn/passkey-sign-in';
import {
  deleteOwnPasskey, deletePasskeyForAdmin, finishPasskeyRegistration, listOwnPasskeys, listPasskeysForAdmin, renameOwnPasskey,
  startPasskeyRegistration,
} from '../services/webauthn/passkeys';
import { adminActor } from './admin-users';
import { optionalString } from './schemas';

const CeremonyBody = z.object({ challenge_id: z.string(), credential: z.record(z.string(), z.unknown()) });
const RenameBody = z.object({ friendly_name: optionalString });


const param = (req: Request, name: string) => String(req.params[name] ?? '');

export function registrationOptions(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await startPasskeyRegistration(deps, signedInCaller(deps, req)));
  };
}

export function registrationVerify(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(CeremonyBody, req.body);
    res.json(await finishPasskeyRegistration(deps, signedInCaller(deps, req), { challengeId: body.challenge_id, credential: body.credential }));
  };
}

export function authenticationOptions(deps: Deps): RequestHandler {
  return async (_req, res) => {
    res.json(await startPasskeySignIn(deps));
  };
}

export function authenticationVerify(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(CeremonyBody, req.body);
    res.json(await finishPasskeySignIn(deps, { challengeId: body.challenge_id, credential: body.credential, client: clientInfo(deps, req) }));
  };
}

export function listPasskeysRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await listOwnPasskeys(deps, userOf(req).user.id));
  };
}

export function renamePasskeyRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(RenameBody, req.body);
    res.json(await renameOwnPasskey(deps, signedInCaller(deps, req), { id: param(req, 'passkey_id'), friendlyName: body.friendly_name }));
  };
}

export function deletePasskeyRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await deleteOwnPasskey(deps, signedInCaller(deps, req), param(req, 'passkey_id')));
  };
}

export function adminListPasskeys(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await listPasskeysForAdmin(deps, param(req, 'user_id')));
  };
}

export function adminDeletePasskey(deps: Deps): RequestHandler {
  return async (req, res) => {
    await deletePasskeyForAdmin(deps, { userId: param(req, 'user_id'), passkeyId: param(req, 'passkey_id'), actor: adminActor(req), client: clientInfo(deps, req) });
    res.status(204).end();
  };
}
