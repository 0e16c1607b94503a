// A request whose target is not a URL (`GET http://[/ HTTP/1.1`, an absolute form with a broken
// host) is answered 400 by the simulators, as a web server in front of MAAS or the agent's WSGI
// server answers it; it used to throw out of the request listener and end the simulator's process.
import net from 'node:net';
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { startAgent, startImageServer, SimDisk } from '../../src/sim/agent/index.ts';

/** The status line of a raw request, sent as written. */
function rawStatus(url: string, requestLine: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(`${requestLine}\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (c: Buffer) => { text += c.toString('latin1'); });
    socket.on('end', () => resolve(text.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

test('malformed target - the MAAS simulator answers 400 and keeps serving', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  t.regex(await rawStatus(sim.url, 'GET http://[/MAAS/api/2.0/version/ HTTP/1.1'), /^HTTP\/1\.1 400 /);
  t.is((await fetch(`${sim.url}/api/2.0/version/`)).status, 200);
});

test('malformed target - the image server and the agent API answer 400 and keep serving', async (t) => {
  const images = await startImageServer({ images: { 'a.img': 'image A\n' } });
  t.teardown(() => images.stop());
  t.regex(await rawStatus(images.url, 'GET http://[/a.img HTTP/1.1'), /^HTTP\/1\.1 400 /);
  t.is((await fetch(images.urlOf('a.img'))).status, 200);

  // The agent looks Ironic up in the background; nothing answers there, which this test does not need.
  const agent = await startAgent({ ironicUrl: 'http://127.0.0.1:9', macs: ['52:54:00:00:00:01'], disk: new SimDisk(), heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0 });
  t.teardown(() => agent.stop());
  t.regex(await rawStatus(agent.url, 'GET http://[/v1/status HTTP/1.1'), /^HTTP\/1\.1 400 /);
  t.is((await fetch(`${agent.url}/v1/status`)).status, 200);
});
