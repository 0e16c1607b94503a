// If-Match compares strongly (RFC 9110 §13.1.1, which DSP0266 follows): a weak entity tag never
// matches, even one whose opaque part is the current strong ETag, so the service answers 412. sushy
// copes: on a 412 it retries a weak tag as the strong one, and then without If-Match.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

test('redfish if-match - a weak form of the current ETag is 412 PreconditionFailed and changes nothing; the strong one and * work', async (t) => {
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const [a] = sim.systems;
  if (!a) throw new Error('one system expected');
  const patch = (ifMatch: string, target: string) => fetch(sim.url + a.systemPath, {
    method: 'PATCH',
    headers: { authorization: basic(a), 'content-type': 'application/json', 'if-match': ifMatch },
    body: JSON.stringify({ Boot: { BootSourceOverrideTarget: target } }),
  });
  const etag = (await fetch(sim.url + a.systemPath, { headers: { authorization: basic(a) } })).headers.get('etag') ?? '';
  t.regex(etag, /^"[\w-]+"$/, 'the sim sends strong ETags');
  const weak = await patch(`W/${etag}`, 'Pxe');
  t.is(weak.status, 412);
  const body = (await weak.json()) as { error: { '@Message.ExtendedInfo': Array<{ MessageId: string }> } };
  t.is(body.error['@Message.ExtendedInfo'][0]?.MessageId, 'Base.1.8.PreconditionFailed');
  t.is(sim.system(a.id).state.boot.target, 'None');
  t.is((await patch(`"other", W/${etag}`, 'Pxe')).status, 412, 'a list holding only the weak form does not match either');
  t.is((await patch(`"other", ${etag}`, 'Pxe')).status, 200);
  t.is((await patch('*', 'Hdd')).status, 200);
  t.is(sim.system(a.id).state.boot.target, 'Hdd');
});

test('redfish if-none-match - a GET naming the current ETag (weak comparison) is 304 with the ETag and no body; another tag reads the resource', async (t) => {
  // DSP0266 (request headers): with If-None-Match, the service returns the resource only if its
  // current ETag does not match; a match answers the GET with 304. RFC 9110 §13.1.2 compares weakly.
  const sim = await startRedfishSim({ systems: 1 });
  t.teardown(() => sim.stop());
  const [a] = sim.systems;
  if (!a) throw new Error('one system expected');
  const get = (ifNoneMatch: string) => fetch(sim.url + a.systemPath, { headers: { authorization: basic(a), 'if-none-match': ifNoneMatch } });
  const etag = (await fetch(sim.url + a.systemPath, { headers: { authorization: basic(a) } })).headers.get('etag') ?? '';
  for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const same = await get(header);
    t.is(same.status, 304, header);
    t.is(same.headers.get('etag'), etag, header);
    t.is(await same.text(), '', header);
  }
  const other = await get('"other"');
  t.is(other.status, 200);
  t.like(await other.json(), { Id: a.id });
  // Credentials still come first: a matching tag without them is 401, not 304.
  t.is((await fetch(sim.url + a.systemPath, { headers: { 'if-none-match': etag } })).status, 401);
});
