// The admin's view of a user's factors (reference §1.4.12): list, rename or renumber, and remove (a lost or stolen
// authenticator), which drops the sessions the factor raised to AAL1.
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { deleteFactor, downgradeSessionsOfFactor, findFactorForUpdate, findFactorsByUserId, updateFactor, type FactorRow } from '../../queries/mfa';
import { findUserById } from '../../queries/users';
import { serializeFactor, type FactorJson } from '../../serialize';
import { normalizePhone } from '../sessions/sign-in';
import { AMR_OF, notFound } from './factors';
import { dropLoneRecoveryCodes } from './recovery-codes';

export async function listFactorsForAdmin(deps: Pick<Deps, 'db'>, userId: string): Promise<FactorJson[]> {
  if (!(await findUserById(deps.db, userId))) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
  return (await findFactorsByUserId(deps.db, userId)).map(serializeFactor);
}

export async function updateFactorForAdmin(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { userId: string; factorId: string; friendlyName?: string; phone?: string },
): Promise<FactorJson> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const factor = await findFactorForUpdate(tx, input.userId, input.factorId);
    if (!factor) throw notFound(input.factorId);
    const changes: Parameters<typeof updateFactor>[2] = {};
    if (input.friendlyName !== undefined) changes.friendly_name = input.friendlyName.trim() || null;
    if (input.phone !== undefined) {
      if (factor.factor_type !== 'phone') throw new ApiError(400, ErrorCode.validation_failed, 'phone can only be set on a phone factor');
      changes.phone = normalizePhone(input.phone);
    }
    const updated = await updateFactor(tx, factor.id, changes, now).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw new ApiError(422, ErrorCode.mfa_factor_name_conflict, 'A factor with this friendly name or phone already exists');
      throw err;
    });
    return serializeFactor(updated as FactorRow);
  });
}

export async function deleteFactorForAdmin(deps: Pick<Deps, 'db' | 'clock'>, input: { userId: string; factorId: string }): Promise<FactorJson> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const factor = await findFactorForUpdate(tx, input.userId, input.factorId);
    if (!factor) throw notFound(input.factorId);
    // A lost or stolen authenticator removed by an admin must not keep sessions at AAL2.
    await downgradeSessionsOfFactor(tx, factor.id, AMR_OF[factor.factor_type], now);
    await deleteFactor(tx, factor.id);
    await dropLoneRecoveryCodes(tx, input.userId, now);
    return serializeFactor(factor);
  });
}

