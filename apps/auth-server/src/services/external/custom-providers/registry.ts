// Custom providers at sign-in: the row for a `custom:<name>` becomes a ProviderDefinition and ProviderConfig, so
// /authorize, /callback and grant_type=id_token run the same flow as for the built-in providers. An OIDC
// provider's endpoints and keys come from the discovery document stored with it; once that is older than
// CUSTOM_OAUTH_DISCOVERY_REFRESH_PERIOD one sign-in per instance re-reads it (the others keep using the stored one),
// and the first instance to store a new one wins (storeRefreshedDiscovery). A failed re-read keeps the stored
// document and is not tried again for a minute, so an issuer that is down is not asked once per sign-in.
import type { ProviderConfig } from '@keyzone/config';
import type { OidcDiscoveryJson } from '@keyzone/db';
import type { Deps } from '../../../deps';
import { ApiError, ErrorCode } from '../../../errors';
import { findCustomProvider, storeRefreshedDiscovery, type CustomProviderRow } from '../../../queries/custom-oauth-providers';
import type { GuardedAgent } from '../../platform/outbound';
import { SecretBox } from '../../platform/secret-box';
import type { ProviderDefinition } from '../provider-types';
import { discoveryOf, discoveryUrlOf, fetchDiscovery } from './discovery';
import { customProfile } from './profile';

const RETRY_AFTER_FAILURE_MS = 60_000;

type RegistryDeps = Pick<Deps, 'config' | 'db' | 'clock' | 'log'>;

export interface ResolvedCustomProvider {
  def: ProviderDefinition;
  config: ProviderConfig;
  row: CustomProviderRow;
}

export class CustomProviderRegistry {
  readonly box: SecretBox | undefined;
  private readonly refreshing = new Map<string, Promise<OidcDiscoveryJson | undefined>>();
  private readonly failedAt = new Map<string, number>();

  constructor(private readonly deps: RegistryDeps, readonly agent: GuardedAgent) {
    const material = deps.config.customOAuth.secretKeyMaterial;
    this.box = material === undefined ? undefined : new SecretBox(material, 'custom-oauth-client-secret');
  }

  get enabled(): boolean {
    return this.deps.config.customOAuth.enabled && this.box !== undefined;
  }

  sealSecret(secret: string, providerId: string): string {
    if (!this.box) throw new ApiError(404, ErrorCode.feature_disabled, 'Custom OAuth providers are disabled');
    return this.box.seal(secret, providerId);
  }

  /** An enabled custom provider by identifier; 400 as GoTrue when it is unknown, disabled or the feature is off. */
  async resolve(identifier: string): Promise<ResolvedCustomProvider> {
    if (!this.enabled || !this.box) throw new ApiError(400, ErrorCode.validation_failed, 'Custom OAuth providers are disabled');
    const row = await findCustomProvider(this.deps.db, identifier);
    if (!row) throw new ApiError(400, ErrorCode.validation_failed, `Unsupported provider: Provider ${identifier} could not be found`);
    if (!row.enabled) throw new ApiError(400, ErrorCode.provider_disabled, `Custom provider "${identifier}" is disabled`);
    let secret: string;
    try {
      secret = this.box.open(row.client_secret, row.id);
    } catch (err) {
      this.deps.log.error({ err, identifier }, 'a custom provider\'s client secret could not be opened');
      // The key changed under the stored secret: the provider is unusable until an admin sets the secret again,
      // which is what GoTrue answers for a provider that is not configured (the reason is in the log above).
      throw new ApiError(400, ErrorCode.provider_disabled, `Custom provider "${identifier}" is not usable until an administrator sets its client secret again`, { cause: err });
    }
    const discovery = row.provider_type === 'oidc' ? await this.currentDiscovery(row) : undefined;
    const redirectUri = `${(this.deps.config.api.externalUrl ?? '').replace(/\/+$/, '')}/callback`;
    const def: ProviderDefinition = {
      name: row.identifier as `custom:${string}`,
      defaultUrl: row.issuer ?? row.authorization_url ?? undefined,
      oidc: row.provider_type === 'oidc',
      discovered: discovery ? discoveryOf(discovery) : undefined,
      endpoints: row.provider_type === 'oauth2' ? () => ({ authorize: row.authorization_url!, token: row.token_url! }) : undefined,
      scopes: row.scopes,
      authorizeParams: row.authorization_params,
      requiresPkce: row.pkce_enabled,
      emailOptional: row.email_optional,
      clientIds: [row.client_id, ...row.acceptable_client_ids.filter((id) => id !== row.client_id)],
      guarded: true,
      profile: (ctx, tokens) => customProfile(ctx, tokens, row),
    };
    const config: ProviderConfig = { enabled: true, clientId: row.client_id, secret, redirectUri, url: row.issuer ?? row.authorization_url ?? undefined };
    return { def, config, row };
  }

  private async currentDiscovery(row: CustomProviderRow): Promise<OidcDiscoveryJson> {
    const stored = row.cached_discovery!;
    const cachedAt = row.discovery_cached_at;
    const age = cachedAt ? this.deps.clock.now().getTime() - new Date(cachedAt).getTime() : Infinity;
    if (age < this.deps.config.customOAuth.discoveryRefreshSeconds * 1000) return stored;
    if (Date.now() - (this.failedAt.get(row.id) ?? -Infinity) < RETRY_AFTER_FAILURE_MS) return stored;
    let pending = this.refreshing.get(row.id);
    if (!pending) {
      pending = this.refresh(row).finally(() => this.refreshing.delete(row.id));
      this.refreshing.set(row.id, pending);
    }
    return (await pending) ?? stored;
  }

  private async refresh(row: CustomProviderRow): Promise<OidcDiscoveryJson | undefined> {
    try {
      const found = await fetchDiscovery(this.agent, discoveryUrlOf(row.issuer!, row.discovery_url), row.issuer!);
      if (row.discovery_cached_at) await storeRefreshedDiscovery(this.deps.db, row.id, new Date(row.discovery_cached_at), found, this.deps.clock.now());
      this.failedAt.delete(row.id);
      return found;
    } catch (err) {
      this.failedAt.set(row.id, Date.now());
      this.deps.log.warn({ err, identifier: row.identifier }, 'a custom provider\'s discovery document could not be re-read; the stored one is used');
      return undefined;
    }
  }
}
