// GET /settings (reference §1.4.13): which sign-in methods are on.
import type { RequestHandler } from 'express';
import { PROVIDER_NAMES } from '@keyzone/config';
import type { Deps } from '../deps';

export function settings(deps: Pick<Deps, 'config'>): RequestHandler {
  return (_req, res) => {
    const { config } = deps;
    const external: Record<string, boolean> = { anonymous_users: config.external.anonymousUsers.enabled };
    for (const name of PROVIDER_NAMES) external[name] = config.external.providers[name].enabled;
    external.email = config.external.email.enabled;
    external.phone = config.external.phone.enabled;
    res.json({
      external,
      disable_signup: config.disableSignup,
      autoconfirm: config.mailer.autoconfirm,
      mailer_autoconfirm: config.mailer.autoconfirm,
      phone_autoconfirm: config.sms.autoconfirm,
      sms_provider: config.sms.provider ?? '',
      saml_enabled: deps.config.saml.enabled,
      passkeys_enabled: deps.config.webauthn.passkeyEnabled,
    });
  };
}
