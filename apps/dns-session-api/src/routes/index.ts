// The table of contents of the API: every route family, in the order the documentation lists them. Adding a
// family here mounts it (app.ts) and documents it (openapi.ts); nothing else needs to know about it.
import type { AnyRoute, RouteFamily } from '../http/route';
import { apiTokenRoutes } from './api-tokens';
import { tsigKeyRoutes } from './tsig-keys';
import { zoneAxfrImportRoutes } from './zone-axfr-import';
import { groupRoutes } from './groups';
import { healthRoutes } from './health';
import { nameserverRoutes } from './nameservers';
import { oidcSignInRoutes } from './oidc-sign-in';
import { permissionRoutes } from './permissions';
import { publishNowRoutes } from './publish-now';
import { sessionRoutes } from './session';
import { statusRoutes } from './status';
import { userIdentityRoutes } from './user-identities';
import { userRoutes } from './users';
import { zoneDelegationRoutes } from './zone-delegations';
import { zoneRecordRoutes } from './zone-records';
import { zoneRoutes } from './zones';
import { zoneSecondaryRoutes } from './zone-secondary';

export const routeFamilies: RouteFamily[] = [
  sessionRoutes,
  oidcSignInRoutes,
  userRoutes,
  userIdentityRoutes,
  apiTokenRoutes,
  tsigKeyRoutes,
  zoneAxfrImportRoutes,
  groupRoutes,
  permissionRoutes,
  nameserverRoutes,
  zoneRoutes,
  zoneDelegationRoutes,
  zoneSecondaryRoutes,
  zoneRecordRoutes,
  publishNowRoutes,
  healthRoutes,
  statusRoutes,
];

/** Every route, tagged with its family's name unless it names its own tags. */
export function allRoutes(families: RouteFamily[] = routeFamilies): AnyRoute[] {
  return families.flatMap((family) => family.routes.map((route) => ({ ...route, tags: route.tags ?? [family.name] })));
}
