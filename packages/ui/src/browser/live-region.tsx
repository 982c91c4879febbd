// A polite status line for what a screen just did ("3 records deleted"): announced by screen readers, shown to
// everyone, and cleared by the next message rather than by a timer, so nobody misses it.
import type { ReactNode } from 'react';

export function StatusMessage(props: { children?: ReactNode }) {
  return <p role="status" className="kz-status">{props.children}</p>;
}
