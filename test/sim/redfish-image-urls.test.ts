// What the simulated BMC shows of an image URL it was given (VirtualMedia.InsertMedia,
// UpdateService.SimpleUpdate): the URL in Image, as a BMC echoes it, but in a name it makes up
// (ImageName, a task's Name, a refusal's message) the file name alone: never the user and
// password of the URL's authority, never a signed query such as Swift's temp_url_sig.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { waitUntil } from '../support/wait.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

async function call(url: string, info: SimSystemInfo, method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; text: string; body: Record<string, unknown> }> {
  const res = await fetch(url + path, { method, headers: { authorization: basic(info), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const SECRETS = ['fw-pass-123', 'fwuser', 'SIGSECRET', 'vm-pass-456', 'vmuser'];
const leaks = (text: string) => SECRETS.filter((s) => text.includes(s));

test('redfish image urls - VirtualMedia ImageName is the file name, without a signed query; a refusal names no credentials', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const image = 'https://swift.example/v1/AUTH_x/ironic/boot-n1.iso?temp_url_sig=SIGSECRET&temp_url_expires=1900000000';
  t.is((await call(sim.url, a, 'POST', '/redfish/v1/Managers/n1/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia', { Image: image })).status, 204);
  for (const path of ['/redfish/v1/Managers/n1/VirtualMedia/Cd', `${a.systemPath}/VirtualMedia/Cd`]) {
    const cd = await call(sim.url, a, 'GET', path);
    t.like(cd.body, { Image: image, ImageName: 'boot-n1.iso', Inserted: true }, path);
  }

  // An image served with credentials in its authority and no path: a second insert is refused
  // (409) and its message must not quote them.
  t.is((await call(sim.url, a, 'POST', '/redfish/v1/Managers/n1/VirtualMedia/Floppy/Actions/VirtualMedia.InsertMedia', { Image: 'http://vmuser:vm-pass-456@media.example' })).status, 204);
  const floppy = await call(sim.url, a, 'GET', '/redfish/v1/Managers/n1/VirtualMedia/Floppy');
  t.deepEqual(leaks(JSON.stringify(floppy.body.ImageName)), [], 'ImageName');
  const again = await call(sim.url, a, 'POST', '/redfish/v1/Managers/n1/VirtualMedia/Floppy/Actions/VirtualMedia.InsertMedia', { Image: 'http://media.example/other.img' });
  t.is(again.status, 409);
  t.deepEqual(leaks(again.text), [], 'the 409 body');
});

test('redfish image urls - a SimpleUpdate task is named by the image file, never by the credentials or query of its URL', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }], updateMs: 0 });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const update = async (uri: string) => {
    const r = await call(sim.url, a, 'POST', '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate', { ImageURI: uri });
    t.is(r.status, 202, uri);
    const monitor = r.headers.get('location') ?? '';
    let done: Awaited<ReturnType<typeof call>> | undefined;
    await waitUntil(async () => {
      done = await call(sim.url, a, 'GET', monitor);
      return done.status === 200;
    }, 5_000, `the task of ${uri} done`);
    return done?.body ?? {};
  };

  const withCredentials = await update('http://fwuser:fw-pass-123@firmware.example');
  t.deepEqual(leaks(JSON.stringify(withCredentials)), [], 'the task of a URL with credentials and no path');
  const tasks = await call(sim.url, a, 'GET', '/redfish/v1/TaskService/Tasks/1');
  t.deepEqual(leaks(tasks.text), [], 'the task resource');

  // A signed URL: the task is named by its file, and the query does not choose the component.
  const before = { ...sim.system('n1').state.firmware };
  const signed = await update('https://swift.example/v1/AUTH_x/fw/bios-2.11.bin?temp_url_sig=SIGSECRET&route=nic');
  t.is(signed.Name, 'SimpleUpdate bios-2.11.bin');
  t.deepEqual(leaks(JSON.stringify(signed)), []);
  t.not(sim.system('n1').state.firmware.BIOS, before.BIOS, 'the BIOS image updated the BIOS');
  t.is(sim.system('n1').state.firmware.NIC, before.NIC, 'a query naming a NIC does not make it a NIC image');
});
