// What users write that is not plain LF-ended YAML: CRLF line endings and a byte order mark are
// read as kubectl reads them; tabs in indentation are refused, as kubectl refuses them, naming
// the file, line and column of the tab (the document's first line was named before).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readManifests } from '../../src/api/manifest.ts';
import { lines, metalfleet } from './run.ts';

const CONFIG_MAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  block: |\n    line1\n    line2\n  folded: >\n    a\n    b\n  quoted: "x\n    y"\n  on: "1"\n';

function kubectlReads(file: string): unknown {
  const out = execFileSync('kubectl', ['annotate', '--local', '-o', 'json', '-f', file, 'probe=x'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const object = JSON.parse(out) as { metadata: { annotations?: Record<string, string> } };
  delete object.metadata.annotations;
  return object;
}

test('manifest yaml forms - CRLF and a byte order mark read as kubectl reads them', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-forms-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of [['crlf.yaml', CONFIG_MAP.replaceAll('\n', '\r\n')], ['bom.yaml', `\uFEFF${CONFIG_MAP}`], ['bom-crlf.yaml', `\uFEFF${CONFIG_MAP.replaceAll('\n', '\r\n')}`]] as const) {
    const file = join(dir, name);
    await writeFile(file, text);
    const [doc] = readManifests(text, file);
    t.is(doc?.yamlError, undefined, name);
    t.deepEqual(doc?.object, kubectlReads(file), name);
  }
});

test('manifest yaml forms - a tab in indentation is refused at its line and column, as kubectl refuses it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-forms-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'tabs.yaml');
  await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: c\n');
  t.throws(() => kubectlReads(file));
  const r = await metalfleet('validate', file);
  t.is(r.code, 1);
  t.deepEqual(lines(r.stderr), [`error: ${file}:4:1: document 1: Tabs are not allowed as indentation`, '0 objects checked, 0 invalid, 1 unreadable']);
  const demo = await metalfleet('demo', '-f', file, '--json', '--timeout', '5');
  t.is(demo.code, 1);
  t.true(lines(demo.stderr).includes(`${file}:4:1: document 1: Tabs are not allowed as indentation`), demo.stderr);
});
