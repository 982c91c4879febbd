// The zone view's "Publish now" (POST /zone/<id>/publish): the whole zone queued again for each of its nameservers
// that is published, then which ones publish it and why the others do not. The nameservers screen follows the queue.
import { useState } from 'react';
import { Button, ErrorSummary, StatusMessage } from '@keyzone/ui/browser';
import { publishZoneNow } from './api';

export function PublishZoneNow(props: { zoneId: number }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | undefined>();
  const [skipped, setSkipped] = useState<string[]>([]);
  const [error, setError] = useState<Error | undefined>();

  async function publish() {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      const reply = await publishZoneNow(props.zoneId);
      const publishing = reply.nameservers.filter((n) => n.not_published === null).map((n) => n.name);
      setMessage(`Queued for ${publishing.join(', ')}: the zone goes out now.`);
      setSkipped(reply.nameservers.filter((n) => n.not_published !== null).map((n) => `${n.name}: ${n.not_published}`));
    } catch (err) {
      setError(err as Error);
      setSkipped([]);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="kz-stack">
      <div className="kz-row">
        <Button variant="secondary" busy={busy} onClick={() => void publish()}>Publish now</Button>
        <StatusMessage>{message}</StatusMessage>
      </div>
      {skipped.length > 0 && (
        <ul aria-label="Nameservers not published">{skipped.map((s) => <li key={s}>{s}</li>)}</ul>
      )}
      <ErrorSummary error={error} title="The zone was not queued" />
    </div>
  );
}
