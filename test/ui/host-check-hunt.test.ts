// DNS rebinding on loopback whatever way the loopback address was spelled: `--bind LOCALHOST`,
// `0:0:0:0:0:0:0:1`, `::ffff:127.0.0.1` or `127.1` listen on loopback as `127.0.0.1` and `::1` do, and
// were answered for any Host name (a page elsewhere could read the fleet and, with the token in a
// tab, no more than that, but the fleet is what the check keeps to loopback).
import { request } from 'node:http';
import test from 'ava';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { hostAllowed } from '../../src/ui/host-check.ts';
import { startUiFleet } from './fleet.ts';

function status(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}api/config`, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('host check hunt - a loopback bind however spelled answers only requests addressed to a loopback name', async (t) => {
  const f = await startUiFleet({ hosts: 1 });
  try {
    // '127.1' is 127.0.0.1 to the resolver, as a host's own name is 127.0.1.1 on Debian: the
    // address listened on decides, not how it was written.
    for (const bind of ['LOCALHOST', '0:0:0:0:0:0:0:1', '127.1']) {
      const ui = await startUiServer({ transport: f.node.substrate.transport, gate: commandGate({ enabled: false }), shardCount: 16, port: 0, bind });
      try {
        t.is(await status(ui.url, `attacker.example:${ui.port}`), 421, `bind ${bind}: another name is refused`);
        t.is(await status(ui.url, `localhost:${ui.port}`), 200, `bind ${bind}: localhost is answered`);
      } finally {
        await ui.close();
      }
    }
  } finally {
    await f.stop();
  }
});

test('host check hunt - the check knows loopback in each of its spellings, and nothing else as loopback', (t) => {
  for (const bind of ['LOCALHOST', 'localhost.', '0:0:0:0:0:0:0:1', '[::1]', '::ffff:127.0.0.1', '127.0.0.1']) {
    t.false(hostAllowed(bind, 'attacker.example:8090'), bind);
    t.true(hostAllowed(bind, '127.0.0.1:8090'), bind);
    t.true(hostAllowed(bind, 'LocalHost:8090'), bind);
  }
  for (const bind of ['0.0.0.0', '::', '10.0.0.1', 'dash.example.com']) t.true(hostAllowed(bind, 'dash.example.com:8090'), `${bind} is not loopback`);
});
