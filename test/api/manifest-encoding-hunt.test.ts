// Files saved with a byte order mark, joined into one manifest (`for f in *.yaml; do echo ---;
// cat "$f"; done`), have a BOM at the start of every document after the first. kubectl's YAML
// reader skips a BOM at the start of a line; here it became part of the first key
// ("\uFEFFapiVersion"): a host was refused for a missing apiVersion it visibly has, and a Secret
// was not a Secret at all. A BOM before a `---` of its own (`cat a.yaml b.yaml` where b.yaml is
// "\uFEFF---\n...") was no document marker either: "Implicit keys need to be on a single line".
import test from 'ava';
import { readManifests } from '../../src/api/manifest.ts';
import { manifestError } from '../../src/api/manifest-where.ts';
import { openLocalStore } from '../../src/adapters/store/local-store.ts';
import { createMemoryBus } from '../../src/bus/index.ts';

const BOM = '\uFEFF';
const SECRET = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: h1-bmc\n  namespace: lab\nstringData:\n  username: admin\n  password: pw\n';
const HOST = 'apiVersion: metal3.io/v1alpha1\nkind: BareMetalHost\nmetadata:\n  name: h1\n  namespace: lab\nspec:\n  online: true\n  bmc:\n    address: redfish://192.0.2.1/redfish/v1/Systems/1\n    credentialsName: h1-bmc\n';

test('manifest BOM - a byte order mark at the start of a later document is no part of its first key', (t) => {
  const docs = readManifests(`${BOM}${SECRET}---\n${BOM}${HOST}`, 'all.yaml');
  t.deepEqual(docs.map((d) => [d.index, d.line, d.kind, d.name, d.apiVersion, d.yamlError]), [
    [0, 1, 'Secret', 'h1-bmc', 'v1', undefined],
    [1, 10, 'BareMetalHost', 'h1', 'metal3.io/v1alpha1', undefined],
  ]);
  t.deepEqual(Object.keys(docs[1]!.object as object), ['apiVersion', 'kind', 'metadata', 'spec']);
  // Columns count from after the mark, as an editor shows the line.
  t.true(manifestError(docs[1]!, 'apiVersion', 'x').startsWith('all.yaml:10:1: '));
  t.true(manifestError(docs[1]!, 'kind', 'x').startsWith('all.yaml:11:1: '));
});

test('manifest BOM - a byte order mark before a document marker still starts a document', (t) => {
  const docs = readManifests(`${HOST}${BOM}---\n${SECRET}`, 'all.yaml');
  t.deepEqual(docs.map((d) => [d.index, d.line, d.kind, d.name, d.yamlError]), [
    [0, 1, 'BareMetalHost', 'h1', undefined],
    [1, 12, 'Secret', 'h1-bmc', undefined],
  ]);
});

test('manifest BOM - demo -f\'s store applies a joined manifest of files saved with a BOM, Secret and host', async (t) => {
  const transport = createMemoryBus().connect('hunt-bom');
  const store = await openLocalStore(transport);
  t.teardown(async () => {
    await store.close();
    await transport.close();
  });
  const result = await store.applyText(`${BOM}${HOST}---\n${BOM}${SECRET}`, 'all.yaml');
  t.deepEqual(result.issues, []);
  t.true(result.ok);
  t.deepEqual(result.created, ['lab/h1']);
  t.deepEqual(result.secrets, ['lab/h1-bmc']);
  t.truthy(store.secrets.peek('lab/h1-bmc'));
});
