// Debian's chromium driven by playwright-core, for the dashboard's browser tests: a fresh profile
// each launch, no network beyond the page's own server. A missing browser fails the test that
// needs it (scripts/chromium-install.sh puts it there), it never skips.
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  try {
    await access(CHROMIUM);
  } catch {
    throw new Error(`${CHROMIUM} is missing: run scripts/chromium-install.sh (apt-get install -y chromium) as root`);
  }
  const profile = await mkdtemp(join(tmpdir(), 'mf-ui-chromium-'));
  // A persistent context is how playwright takes a --user-data-dir: here a fresh one each time.
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1366, height: 900 } });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
