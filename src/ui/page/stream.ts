// The live picture: one EventSource on /api/events. The browser reconnects it by itself after a
// dropped connection, but not after an answer that is not a stream (an HTTP error, a proxy's error
// page while the node behind it restarts): then the page opens a new one, backing off.
import type { Picture } from './types.ts';

/** The first retry after an error answer, doubled each time up to the last. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export function watchPicture(onPicture: (p: Picture) => void, onProblem: (text: string | null) => void): () => void {
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  const open = (): void => {
    const s = new EventSource('/api/events');
    source = s;
    s.addEventListener('picture', (e) => {
      // What one update costs (parse and render), for the browser's performance API: bench/ui.ts
      // reads the 'mf-update' measures the page makes once the picture is drawn.
      performance.mark('mf-picture');
      failures = 0;
      onProblem(null);
      onPicture(JSON.parse((e as MessageEvent<string>).data) as Picture);
    });
    s.addEventListener('problem', (e) => {
      onProblem((JSON.parse((e as MessageEvent<string>).data) as { message: string }).message);
    });
    s.onerror = () => {
      if (s.readyState !== EventSource.CLOSED) return onProblem('connection to metalfleet lost; reconnecting…');
      s.close();
      const waitMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** failures);
      failures += 1;
      onProblem(`metalfleet answered the live picture with an error; trying again in ${Math.round(waitMs / 1_000)} s…`);
      retry = setTimeout(open, waitMs);
    };
  };
  open();
  return () => {
    clearTimeout(retry);
    source?.close();
  };
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
