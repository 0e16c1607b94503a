// The dashboard with a big fleet: `metalfleet demo --ui` with --hosts (10,000) hosts, the page in
// Debian's chromium (playwright-core), measured with the browser's performance API: first paint
// and first contentful paint, the time until the page shows the whole fleet, and what the live
// updates cost the page's main thread per second (the 'mf-update' measures the page makes from
// an event's arrival to its picture drawn, and the long tasks chromium reports) while the fleet
// moves. Flags: --hosts 10000 --latency 20 --limit 200 --window 15 (seconds measured).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../test/ui/browser.ts';
import { round } from './cluster-support.ts';
import { intFlag, percentile } from './support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`bench ui: ${what} not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function run(flags: Record<string, string>): Promise<object> {
  const hosts = intFlag(flags, 'hosts', 10_000);
  const latency = intFlag(flags, 'latency', 20);
  const limit = intFlag(flags, 'limit', 200);
  const windowS = intFlag(flags, 'window', 15);
  const demo = spawn(process.execPath, ['--max-semi-space-size=32', 'bin/metalfleet.js', 'demo', '--ui', '--ui-port', '0', '--hosts', String(hosts),
    '--latency', String(latency), '--limit', String(limit), '--no-maas', '--no-progress', '--timeout', '3600'], { cwd: ROOT, env: { ...process.env, METALFLEET_FROM_SOURCE: '1', METALFLEET_LOG_LEVEL: 'silent' } });
  let err = '';
  demo.stderr.on('data', (b: Buffer) => { err += b.toString(); });
  demo.stdout.resume();
  const browser = await launchBrowser();
  try {
    await until(() => /metalfleet dashboard: (http:\S+\/)/.test(err), 300_000, 'the dashboard address');
    const url = /metalfleet dashboard: (http:\S+\/)/.exec(err)?.[1] ?? '';
    const page = await browser.context.newPage();
    await page.goto(url);
    await until(async () => (await page.getByTestId('hosts-total').textContent().catch(() => '')) === String(hosts), 120_000, 'the whole fleet on the page');
    const shown = await page.evaluate(() => performance.now());
    // Run in the page; the casts only satisfy Node's performance types, which lack the browser's entry types.
    const paints = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('paint' as 'mark').map((p) => [p.name, p.startTime])));
    // Long tasks from here on (chromium reports main-thread tasks over 50 ms).
    await page.evaluate(() => {
      const w = globalThis as unknown as { mfLong: number };
      w.mfLong = 0;
      new PerformanceObserver((list) => { for (const e of list.getEntries()) w.mfLong += e.duration; }).observe({ type: 'longtask' as 'mark' });
      performance.clearMeasures('mf-update');
    });
    const moving = await page.getByTestId('provisioned').textContent();
    await new Promise((r) => setTimeout(r, windowS * 1_000));
    const m = await page.evaluate(() => ({
      updates: performance.getEntriesByName('mf-update', 'measure').map((e) => e.duration),
      longMs: (globalThis as unknown as { mfLong: number }).mfLong,
    }));
    const still = await page.getByTestId('provisioned').textContent();
    const total = m.updates.reduce((a, b) => a + b, 0);
    return {
      bench: 'ui', hosts, latencyMs: latency, limit, windowS,
      firstPaintMs: round(paints['first-paint'] ?? -1, 1),
      firstContentfulPaintMs: round(paints['first-contentful-paint'] ?? -1, 1),
      wholeFleetShownMs: round(shown, 1),
      updates: m.updates.length,
      updatesPerSecond: round(m.updates.length / windowS, 2),
      updateMsPerSecond: round(total / windowS, 1),
      updateP50Ms: round(percentile(m.updates, 50), 1),
      updateP95Ms: round(percentile(m.updates, 95), 1),
      updateMaxMs: round(Math.max(0, ...m.updates), 1),
      longTaskMsPerSecond: round(m.longMs / windowS, 1),
      provisionedAtStart: Number(moving), provisionedAtEnd: Number(still),
    };
  } finally {
    await browser.close();
    demo.kill('SIGINT');
    await new Promise((r) => demo.once('exit', r));
  }
}
