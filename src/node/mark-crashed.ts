import { initialStatus, errorMessage } from '../api/index.ts';
import type { Logger, ResourceStore } from '../ports/index.ts';

// A host whose actor keeps crashing is marked in its status, with a reason, and left alone until
// its object changes: never a hot restart loop.
export async function markCrashed(store: ResourceStore, log: Logger, key: string, error: unknown, restarts: number): Promise<void> {
  const message = `host actor crashed ${restarts} times, last: ${describe(error)}; metalfleet stopped driving it — fix the cause, then change the host (for example annotate it) to retry`;
  log.error({ host: key, restarts, err: describe(error) }, 'host actor gave up');
  try {
    const host = await store.get('BareMetalHost', key);
    if (!host) return;
    const status = host.status ?? initialStatus();
    await store.writeStatus('BareMetalHost', key, { ...status, operationalStatus: 'error', errorMessage: message, errorCount: status.errorCount + 1 });
  } catch (err) {
    log.error({ host: key, err: describe(err) }, 'recording the crash in status failed');
  }
}

function describe(err: unknown): string {
  return errorMessage(err);
}
