// Hash routes (#/zones/12): the part after # never reaches the server, so no client route can shadow an API path
// (the API owns /zone, /user, /group, … at the root), and `/` is the one address the server answers with the page.
import { useEffect, useState } from 'react';

export function currentRoute(): string {
  return window.location.hash.replace(/^#/, '') || '/zones';
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function navigate(route: string): void {
  window.location.hash = route;
}
