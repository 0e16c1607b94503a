// Every private Ironic after the first copies one schema instead of running ironic-dbsync again.
import test from 'ava';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { schemaInto } from '../../src/sim/ironic/schema-template.ts';
import { IRONIC_21_4 } from '../../src/sim/ironic/version.ts';
import { ironicInstalled, startIronic } from '../support/ironic.ts';

test('the schema is built once per installed Ironic and copied after', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'schema-template-'));
  let builds = 0;
  const into = (db: string) => schemaInto(db, IRONIC_21_4, async () => {
    builds++;
    await writeFile(db, `schema ${builds}`);
  }, dir);
  await into(join(dir, 'a.db'));
  await into(join(dir, 'b.db'));
  t.is(builds, 1);
  t.is(await readFile(join(dir, 'b.db'), 'utf8'), 'schema 1');
  // Another release has its own template.
  await schemaInto(join(dir, 'c.db'), { major: 29, minor: 0, patch: 0 }, async () => {
    builds++;
    await writeFile(join(dir, 'c.db'), 'schema 29');
  }, dir);
  t.is(builds, 2);
  t.is((await readdir(dir)).filter((f) => f.startsWith('metalfleet-ironic-schema-')).length, 2);
});

test('a failed build leaves no template behind, and the next start builds again', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'schema-template-'));
  await t.throwsAsync(schemaInto(join(dir, 'a.db'), IRONIC_21_4, () => Promise.reject(new Error('dbsync failed')), dir), { message: 'dbsync failed' });
  t.deepEqual((await readdir(dir)).filter((f) => f.startsWith('metalfleet-ironic-schema-')), []);
  let built = false;
  await schemaInto(join(dir, 'b.db'), IRONIC_21_4, async () => {
    built = true;
    await writeFile(join(dir, 'b.db'), 'schema');
  }, dir);
  t.true(built);
});

test('a real Ironic started on a copied schema serves and keeps its nodes', async (t) => {
  t.true(ironicInstalled(), 'ironic is not installed: run bash scripts/ironic-install.sh');
  const first = await startIronic();
  const second = await startIronic();
  t.teardown(() => Promise.all([first.stop(), second.stop()]));
  const res = await fetch(`${second.url}/v1/nodes`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-OpenStack-Ironic-API-Version': '1.46' }, body: JSON.stringify({ name: 'copied', driver: 'fake-hardware' }) });
  t.is(res.status, 201);
  const list = (await (await fetch(`${second.url}/v1/nodes`, { headers: { 'X-OpenStack-Ironic-API-Version': '1.46' } })).json()) as { nodes: Array<{ name: string }> };
  t.deepEqual(list.nodes.map((n) => n.name), ['copied']);
  const other = (await (await fetch(`${first.url}/v1/nodes`)).json()) as { nodes: unknown[] };
  t.deepEqual(other.nodes, []);
});
