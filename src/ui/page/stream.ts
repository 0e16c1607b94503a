// The live picture: one EventSource on /api/events; the browser reconnects it by itself.
import type { Picture } from './types.ts';

export function watchPicture(onPicture: (p: Picture) => void, onProblem: (text: string | null) => void): () => void {
  const source = new EventSource('/api/events');
  source.addEventListener('picture', (e) => {
    // What one update costs (parse and render), for the browser's performance API: bench/ui.ts
    // reads the 'mf-update' measures the page makes once the picture is drawn.
    performance.mark('mf-picture');
    onProblem(null);
    onPicture(JSON.parse((e as MessageEvent<string>).data) as Picture);
  });
  source.addEventListener('problem', (e) => {
    onProblem((JSON.parse((e as MessageEvent<string>).data) as { message: string }).message);
  });
  source.onerror = () => onProblem('connection to metalfleet lost; reconnecting…');
  return () => source.close();
}

const TOKEN_KEY = 'metalfleet-ui-token';

/** The command token arrives in the URL fragment (never sent to the server in a URL); kept for the tab. */
export function takeToken(): string | null {
  const m = /^#token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (m?.[1]) {
    sessionStorage.setItem(TOKEN_KEY, m[1]);
    history.replaceState(null, '', `${location.pathname}#/`);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}
