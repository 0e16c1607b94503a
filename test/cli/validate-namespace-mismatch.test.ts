// `metalfleet validate -n prod` on an object that says `namespace: staging`: kubectl refuses
// ("the namespace from the provided object "staging" does not match the namespace "prod". You must
// pass '--namespace=staging' to perform this operation.") and exits 1. Ours checked the object in
// staging, said nothing and exited 0, so a manifest meant for another namespace passed as valid.
import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runValidate } from '../../src/cli/commands/validate.ts';
import { lines, metalfleet, ROOT } from './run.ts';

function hostYaml(name: string, namespace?: string): string {
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${name}
${namespace ? `  namespace: ${namespace}\n` : ''}spec:
  online: true
  bootMACAddress: 52:54:00:aa:bb:cc
  bmc:
    address: redfish-virtualmedia://192.0.2.10/redfish/v1/Systems/1
    credentialsName: ${name}-bmc
`;
}

function file(t: ExecutionContext, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'validate-ns-mismatch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'hosts.yaml');
  writeFileSync(path, text);
  return relative(ROOT, path);
}

const refusal = (ns: string, given: string): string =>
  `the namespace from the provided object "${ns}" does not match the namespace "${given}". You must pass '--namespace=${ns}' to perform this operation.`;

test('validate -n mismatch - an object in another namespace is refused as kubectl refuses it, naming file, line, object and both namespaces', async (t) => {
  const first = hostYaml('worker-0', 'prod');
  const path = file(t, `${first}---\n${hostYaml('worker-1', 'staging')}`);
  const secondLine = first.split('\n').length + 1;
  const r = await metalfleet('validate', '-n', 'prod', path);
  t.is(r.code, 1, r.stdout + r.stderr);
  t.true(lines(r.stderr).includes(`error: ${path}:${secondLine}: document 2: BareMetalHost staging/worker-1: ${refusal('staging', 'prod')}`), r.stderr);
  t.false(r.stderr.includes('worker-0:'), 'the object in the namespace given is not named');
  t.regex(r.stderr, /2 objects checked, 1 invalid/);
});

test('validate -n mismatch - the same namespace, or none, passes; the long form refuses too', async (t) => {
  const path = file(t, `${hostYaml('worker-0', 'prod')}---\n${hostYaml('worker-1')}`);
  const ok = await metalfleet('validate', '-n', 'prod', path);
  t.is(ok.code, 0, ok.stdout + ok.stderr);
  const other = await metalfleet('validate', '--namespace=dev', path);
  t.is(other.code, 1);
  t.regex(other.stderr, /BareMetalHost prod\/worker-0: the namespace from the provided object "prod" does not match the namespace "dev"/);
  t.notRegex(other.stderr, /worker-1/);
});

test('validate -n mismatch - runValidate counts the refused object invalid, so apply would write nothing', async (t) => {
  const path = join(ROOT, file(t, hostYaml('worker-1', 'staging')));
  const err: string[] = [];
  const summary = await runValidate([path], [], { out: () => undefined, err: (l) => err.push(l) }, {}, 'prod');
  t.is(summary.invalid, 1);
  t.true(err.some((l) => l.endsWith(refusal('staging', 'prod'))), err.join('\n'));
});
