import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (`#/projects/prj_…`): the gateway serves one index.html at /console, and a route
 * never reaches the server, so no path from the address bar needs a server-side fallback. The
 * console opens on the overview: what needs attention first.
 */
export function useRoute(): string[] {
  const parse = () => (location.hash.replace(/^#\/?/, '') || 'overview').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const on = () => setRoute(parse());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;
export const go = (...parts: string[]) => {
  location.hash = href(...parts);
};
