// The demo's private Ironic and datacenter on the way out (Ctrl-C): the datacenter stops first, so
// its agents do not heartbeat into a stopped Ironic and print a line each; and an agent call that
// got no answer says "failed (no answer)", not "refused by Ironic".
import test from 'ava';
import { refusalReporter, startPrivateIronic } from '../../src/cli/demo/private-ironic.ts';

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

test('private ironic - stop() ends the datacenter before Ironic', async (t) => {
  const backend = await startPrivateIronic({ servers: 1 });
  const dc = backend.datacenter;
  if (!dc) throw new Error('a datacenter expected');
  t.true(await answers(`${backend.url}/`));
  t.true(await answers(`${dc.redfish.url}/redfish/v1/`));
  let bmcGoneWhileIronicUp: boolean | null = null;
  const stopped = backend.stop();
  let done = false;
  void stopped.finally(() => (done = true));
  // Watched until both are gone (stop() resolves after both): which went first.
  while (!done || bmcGoneWhileIronicUp === null) {
    const [ironicUp, bmcUp] = await Promise.all([answers(`${backend.url}/`), answers(`${dc.redfish.url}/redfish/v1/`)]);
    if (bmcGoneWhileIronicUp === null && (!ironicUp || !bmcUp)) bmcGoneWhileIronicUp = !bmcUp && ironicUp;
    if (done && bmcGoneWhileIronicUp === null) bmcGoneWhileIronicUp = false;
    await new Promise((r) => setTimeout(r, 10));
  }
  await stopped;
  t.true(bmcGoneWhileIronicUp, 'the datacenter (its BMCs) went before Ironic');
});

test('private ironic - an agent call with no answer is said as failed, a refusal as refused, nothing once stopping', async (t) => {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  let quiet = false;
  try {
    const report = await refusalReporter(() => quiet);
    report('node-1', { call: 'heartbeat', status: 0, message: 'fetch failed', count: 4, retryInMs: 2_000 });
    report('node-1', { call: 'heartbeat', status: 400, message: 'TLS is required', count: 1, retryInMs: 1_000 });
    quiet = true;
    report('node-1', { call: 'heartbeat', status: 0, message: 'fetch failed', count: 5, retryInMs: 2_000 });
  } finally {
    process.stderr.write = write;
  }
  t.is(lines.length, 2, lines.join(''));
  t.regex(lines[0] ?? '', /^datacenter node-1: heartbeat to Ironic failed \(no answer\): fetch failed; 4 in a row/);
  t.notRegex(lines[0] ?? '', /refused/);
  t.regex(lines[1] ?? '', /^datacenter node-1: heartbeat refused by Ironic \(HTTP 400\): TLS is required/);
});
