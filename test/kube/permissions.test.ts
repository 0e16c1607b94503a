import test from 'ava';
import { adapterCallPermissions, formatPermission, isDeclared } from '../../src/adapters/kube/index.ts';
import { KubeCalls, permissionFor } from '../../src/adapters/kube/kube-calls.ts';
import { ADAPTER_PERMISSIONS, COMPANION_PERMISSIONS } from '../../src/adapters/kube/permissions.ts';
import { RESOURCES } from '../../src/adapters/kube/resources.ts';

const declared = (): string[] => ADAPTER_PERMISSIONS.flatMap((p) => p.verbs.map((verb) => formatPermission({ apiGroup: p.apiGroup, resource: p.resource, verb })));

test('permissions - every call the adapter can make is declared in ADAPTER_PERMISSIONS', (t) => {
  const missing = adapterCallPermissions().filter((p) => !isDeclared(p)).map(formatPermission);
  t.deepEqual(missing, []);
});

test('permissions - nothing is declared that the adapter never calls (least privilege)', (t) => {
  const used = new Set(adapterCallPermissions().map(formatPermission));
  // The adapter never replaces whole objects (PUT): status and finalizers go by merge patch.
  // It reads CAPI Machines, Clusters and Secrets from informers only, never one by one.
  // On BMO's companion kinds the role is BMO's manager-role, whole (deploy/manifests.test.ts
  // holds it to BMO's role.yaml), so a cluster moving from BMO keeps what its objects had.
  const bmoRole = new Set(COMPANION_PERMISSIONS.map((p) => `${p.apiGroup}/${p.resource}`));
  const beyondBmo = ADAPTER_PERMISSIONS.filter((p) => !bmoRole.has(`${p.apiGroup}/${p.resource}`))
    .flatMap((p) => p.verbs.map((verb) => formatPermission({ apiGroup: p.apiGroup, resource: p.resource, verb })));
  t.deepEqual(beyondBmo.filter((p) => !used.has(p)), []);
  t.true(declared().length > beyondBmo.length);
});

test('permissions - a call needing an undeclared permission fails as RBAC would, before any request', async (t) => {
  const calls = new KubeCalls();
  let requested = false;
  const error = await t.throwsAsync(calls.call(permissionFor(RESOURCES.Secret, 'delete'), 'deleting Secret lab/bmc', async () => { requested = true; }));
  t.false(requested);
  t.regex(error.message, /delete core\/secrets is not in ADAPTER_PERMISSIONS/);
});

test('permissions - calls record the permissions they used', async (t) => {
  const calls = new KubeCalls();
  await calls.call(permissionFor(RESOURCES.BareMetalHost, 'patch', 'status'), 'x', async () => undefined);
  t.deepEqual([...calls.used], ['patch metal3.io/baremetalhosts/status']);
});

test('permissions - requests beyond maxInFlight wait for a free slot', async (t) => {
  const calls = new KubeCalls({ maxInFlight: 2 });
  let running = 0;
  let most = 0;
  const p = permissionFor(RESOURCES.BareMetalHost, 'get');
  await Promise.all(Array.from({ length: 10 }, () => calls.call(p, 'x', async () => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 2));
    running -= 1;
  })));
  t.is(most, 2);
});
