// `metalfleet demo --ui`: the dashboard beside the embedded demo, its address on stderr, the
// whole fleet on the page while it runs and after, until Ctrl-C; then a clean exit.
import { spawn } from 'node:child_process';
import test from 'ava';
import { FleetPicture } from '../../src/ui/index.ts';
import { ROOT } from '../cli/run.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';

test('ui demo - demo --ui serves the fleet it runs, stays up after the demo and stops on SIGINT', async (t) => {
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'demo', '--ui', '--ui-port', '0', '--hosts', '60', '--latency', '1', '--no-maas', '--no-progress'], { cwd: ROOT, env: { ...process.env, METALFLEET_LOG_LEVEL: 'silent' } });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitUntil(() => /metalfleet dashboard: http:\/\/127\.0\.0\.1:\d+\//.test(stderr), 60_000, 'the dashboard address');
    const url = /metalfleet dashboard: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)?.[1] ?? '';
    t.regex(stderr, /read-only/);
    await waitUntil(() => /demo done/.test(stderr), 60_000, 'the demo to finish');
    const picture = FleetPicture.parse(await (await fetch(`${url}api/fleet`)).json());
    t.is(picture.hostsTotal, 60);
    t.deepEqual(picture.nodes.map((n) => n.node), ['demo']);
    t.is((await fetch(url)).status, 200);
    t.is((await fetch(`${url}api/hosts/metal3/nobody/command`, { method: 'POST', body: '{"action":"power-off"}' })).status, 403);
    // The summary is on stdout while the page holds, not only after Ctrl-C: a script has its answer.
    await waitUntil(() => /60\/60 hosts reached their target/.test(stdout), 20_000, 'the summary before Ctrl-C');
    child.kill('SIGINT');
    t.is(await exited, 0, stderr);
    t.is(stdout.match(/hosts reached their target/g)?.length, 1, 'told once');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('ui demo - with the MAAS simulator, the page lists the MaasMachines by MAAS state and a machine page has its MAAS record', async (t) => {
  // The browser first: a browser that cannot start must not leave a demo behind that never exits.
  const browser = await launchBrowser();
  const child = spawn(process.execPath, ['bin/metalfleet.js', 'demo', '--ui', '--ui-port', '0', '--hosts', '10', '--latency', '1', '--maas-control-plane', '1', '--maas-workers', '2', '--no-progress'], { cwd: ROOT, env: { ...process.env, METALFLEET_LOG_LEVEL: 'silent' } });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitUntil(() => /demo done/.test(stderr), 90_000, 'the demo to finish');
    const url = /metalfleet dashboard: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)?.[1] ?? '';
    const page = await browser.context.newPage();
    await page.goto(url);
    await waitUntil(async () => /3 MaasMachines: Deployed 3/.test(await page.getByTestId('maas').textContent({ timeout: 20_000 }) ?? ''), 20_000, 'the MAAS section');
    const first = page.getByTestId('maas').getByRole('link').first();
    const name = await first.textContent() ?? '';
    await first.click();
    await waitUntil(async () => (await page.getByTestId('host-key').textContent({ timeout: 20_000 })) === name, 20_000, 'the machine page');
    t.regex(await page.getByTestId('host-state').textContent() ?? '', /Deployed/);
    t.regex(await page.locator('section.host').textContent() ?? '', /Backend record/);
    await page.close();
    child.kill('SIGINT');
    t.is(await exited, 0, stderr);
  } finally {
    await browser.close();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
