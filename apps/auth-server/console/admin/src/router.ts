// Client-side routes under /admin/console/ (the server answers each of them with the same page).
import { useEffect, useState } from 'react';

export const BASE = '/admin/console';

export function navigate(path: string): void {
  window.history.pushState(null, '', `${BASE}${path}`);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The path under the console's base, e.g. "/users/<id>". */
export function useRoute(): string {
  const read = () => window.location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onPop = () => setRoute(read());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  return route;
}

/** A link that stays in the page (and still works opened in a new tab). */
export function linkProps(path: string) {
  return {
    href: `${BASE}${path}`,
    onClick: (event: { preventDefault(): void; metaKey: boolean; ctrlKey: boolean; shiftKey: boolean; button: number }) => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      navigate(path);
    },
  };
}
