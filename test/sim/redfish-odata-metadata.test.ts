// The OData documents DSP0266 requires (/redfish/v1/$metadata and /redfish/v1/odata), served without
// credentials, and a PATCH of an empty JSON object refused with Base.EmptyJSON.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function started(t: { teardown(fn: () => Promise<void>): void }) {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const [a] = sim.systems;
  if (!a) throw new Error('one system expected');
  return { sim, a };
}

test('redfish odata - $metadata is a public CSDL document naming the schemas and the Service container', async (t) => {
  const { sim } = await started(t);
  const res = await fetch(`${sim.url}/redfish/v1/$metadata`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^application\/xml/);
  t.is(res.headers.get('odata-version'), '4.0');
  const xml = await res.text();
  t.regex(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>/);
  t.regex(xml, /<edmx:Edmx xmlns:edmx="http:\/\/docs\.oasis-open\.org\/odata\/ns\/edmx" Version="4\.0">/);
  for (const name of ['ServiceRoot', 'ComputerSystem', 'Manager', 'Chassis', 'SessionService', 'UpdateService', 'TaskService']) {
    t.regex(xml, new RegExp(`<edmx:Reference Uri="http://redfish\\.dmtf\\.org/schemas/v1/${name}_v1\\.xml">\\s*<edmx:Include Namespace="${name}"/>`), name);
  }
  t.regex(xml, /<EntityContainer Name="Service" Extends="ServiceRoot\.v1_5_0\.ServiceContainer"\/>/);
});

test('redfish odata - every @odata.context the service root emits names a type $metadata references', async (t) => {
  const { sim } = await started(t);
  const root = (await (await fetch(`${sim.url}/redfish/v1/`)).json()) as Record<string, string>;
  const xml = await (await fetch(`${sim.url}/redfish/v1/$metadata`)).text();
  const namespace = /\$metadata#(\w+)\./.exec(root['@odata.context'] ?? '')?.[1] ?? '';
  t.true(xml.includes(`<edmx:Include Namespace="${namespace}"/>`));
});

test('redfish odata - the service document is public and lists the service root resources as singletons', async (t) => {
  const { sim } = await started(t);
  const res = await fetch(`${sim.url}/redfish/v1/odata`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  const doc = (await res.json()) as { '@odata.context': string; value: { name: string; kind: string; url: string }[] };
  t.is(doc['@odata.context'], '/redfish/v1/$metadata');
  t.true(doc.value.every((v) => v.kind === 'Singleton'));
  t.like(Object.fromEntries(doc.value.map((v) => [v.name, v.url])), {
    Service: '/redfish/v1/', Systems: '/redfish/v1/Systems', Managers: '/redfish/v1/Managers', Chassis: '/redfish/v1/Chassis',
    SessionService: '/redfish/v1/SessionService', Sessions: '/redfish/v1/SessionService/Sessions', UpdateService: '/redfish/v1/UpdateService',
    Tasks: '/redfish/v1/TaskService', Registries: '/redfish/v1/Registries',
  });
});

test('redfish odata - a PATCH of an empty JSON object is refused with Base EmptyJSON and changes nothing', async (t) => {
  const { sim, a } = await started(t);
  const headers = { authorization: basic(a), 'content-type': 'application/json' };
  for (const path of [a.systemPath, `${a.systemPath}/SecureBoot`, `/redfish/v1/Chassis/${a.id}`]) {
    const before = await fetch(sim.url + path, { headers });
    const res = await fetch(sim.url + path, { method: 'PATCH', headers, body: '{}' });
    t.is(res.status, 400, path);
    const body = (await res.json()) as { error: { code: string; '@Message.ExtendedInfo': { MessageId: string; Message: string }[] } };
    t.regex(body.error.code, /^Base\.1\.\d+\.EmptyJSON$/);
    t.regex(body.error['@Message.ExtendedInfo'][0]?.MessageId ?? '', /\.EmptyJSON$/);
    t.is(body.error['@Message.ExtendedInfo'][0]?.Message, 'The request body submitted contained an empty JSON object and the service is unable to process it.');
    const after = await fetch(sim.url + path, { headers });
    t.is(after.headers.get('etag'), before.headers.get('etag'), path);
  }
});
