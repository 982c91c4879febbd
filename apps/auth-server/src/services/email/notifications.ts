// Change notifications (MAILER_NOTIFICATIONS_<KIND>_ENABLED, default off): sent after the change
// committed, best effort. A failed notification is logged and never undoes or fails the change.
import type { NotificationKind } from '@keyzone/config';
import type { Deps } from '../../deps';
import type { TemplateData } from '../../mail/kinds';

export type NotificationData = Omit<TemplateData, 'SiteURL'>;

export async function sendNotification(
  deps: Pick<Deps, 'config' | 'mailer' | 'log'>,
  kind: NotificationKind,
  to: string | null | undefined,
  data: NotificationData,
): Promise<void> {
  if (!deps.config.mailer.notifications[kind] || !deps.mailer || !to) return;
  try {
    await deps.mailer.send({ kind: `${kind}Notification`, to, data: { SiteURL: deps.config.siteUrl, Email: to, ...data } });
  } catch (err) {
    deps.log.warn({ notification: kind, err: (err as Error).message }, 'notification email could not be sent');
  }
}
