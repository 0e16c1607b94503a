// Requests at the edges a real BMC answers with a 4xx naming what is wrong: a URI whose
// percent-encoding is not UTF-8, and a PATCH of the BIOS settings object carrying properties it has not.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function call(url: string, info: SimSystemInfo | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (info) headers.authorization = basic(info);
  const res = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

type Info = { MessageId: string; Message: string; RelatedProperties?: string[] };
const messageOf = (body: Record<string, unknown>) => ((body.error as { '@Message.ExtendedInfo': Info[] } | undefined)?.['@Message.ExtendedInfo'] ?? [])[0];

async function started(t: { teardown(fn: () => Promise<void>): void }) {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  return { sim, a: sim.systems[0] as SimSystemInfo };
}

// Before: decodeURIComponent threw on the id and the BMC answered 500 InternalError, on which
// sushy retries a GET ten times, three seconds apart, before it reports a server fault.
test('redfish request edges - a URI segment that is not percent-encoded UTF-8 is a 400 naming it, not a 500', async (t) => {
  const { sim, a } = await started(t);
  for (const path of ['/redfish/v1/Systems/%E0%A4', '/redfish/v1/Systems/n1/VirtualMedia/%FF', '/redfish/v1/Managers/%C3']) {
    const r = await call(sim.url, a, 'GET', path);
    t.is(r.status, 400, path);
    const m = messageOf(r.body);
    t.truthy(m, `${path}: a Redfish error body`);
    t.regex(m?.MessageId ?? '', /^Base\.1\.8\./);
    t.true((m?.Message ?? '').includes(path.split('/').pop() ?? ''), `${path}: the message names the segment`);
  }
  // A well-formed encoding of an unknown id is still 404, and a known one still answers.
  t.is((await call(sim.url, a, 'GET', '/redfish/v1/Systems/n%C3%A9')).status, 404);
  t.is((await call(sim.url, a, 'GET', '/redfish/v1/Systems/n%31')).status, 200);
});

// Before: Bios/Settings took any top-level property and staged the Attributes beside it (204),
// where a ComputerSystem or Chassis PATCH refuses it; DSP0266 has a BMC report an unknown or
// read-only property (Base PropertyUnknown / PropertyNotWritable), never drop it silently.
test('redfish request edges - a Bios/Settings PATCH with a property the settings object has not is refused and stages nothing', async (t) => {
  const { sim, a } = await started(t);
  const settings = `${a.systemPath}/Bios/Settings`;
  const unknown = await call(sim.url, a, 'PATCH', settings, { Attributes: { NumLock: 'Off' }, Atributes: { BootDelaySeconds: 5 } });
  t.is(unknown.status, 400);
  t.like(messageOf(unknown.body), { MessageId: 'Base.1.8.PropertyUnknown', RelatedProperties: ['#/Atributes'] });
  const readOnly = await call(sim.url, a, 'PATCH', settings, { Attributes: { NumLock: 'Off' }, Id: 'Other' });
  t.is(readOnly.status, 400);
  t.like(messageOf(readOnly.body), { MessageId: 'Base.1.8.PropertyNotWritable', RelatedProperties: ['#/Id'] });
  t.deepEqual(sim.system('n1').state.bios.pending, {}, 'a refused PATCH stages nothing');

  // What sushy sends (Bios.set_attributes with apply_time) is still taken.
  const sushy = await call(sim.url, a, 'PATCH', settings, { Attributes: { NumLock: 'Off' }, '@Redfish.SettingsApplyTime': { '@odata.type': '#Settings.v1_0_0.PreferredApplyTime', ApplyTime: 'OnReset' } });
  t.is(sushy.status, 204);
  t.deepEqual(sim.system('n1').state.bios.pending, { NumLock: 'Off' });
});
