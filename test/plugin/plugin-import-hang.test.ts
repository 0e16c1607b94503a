// A plugin whose module never finishes loading (a top-level await on a PDU that does not answer)
// held the start for ever, before the factory's own timeout could apply: the load is bounded too.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginError, loadPlugin } from '../../src/plugin/index.ts';

test('plugin load - a module that never finishes loading is refused after the load timeout, naming the plugin', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-hang-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // unref: the pending load must not keep the test worker alive once the test is over.
  await writeFile(join(dir, 'stuck.mjs'), 'await new Promise((resolve) => setTimeout(resolve, 3_600_000).unref());\nexport default {};\n');
  const started = Date.now();
  const err = await t.throwsAsync(loadPlugin('./stuck.mjs', dir, { loadTimeoutMs: 200 }), { instanceOf: PluginError });
  t.is(err?.message, 'provisioner plugin ./stuck.mjs: its module did not finish loading within 0.2 s');
  t.false(err?.retryable);
  t.true(Date.now() - started < 10_000);
});
