// The negotiated Ironic microversion is logged at info when the CLI connects, and the provisioner
// tells it (apiVersions) for introspection — single endpoint and routed alike.
import http from 'node:http';
import test from 'ava';
import { ironicProvisioner } from '../../src/cli/backends.ts';
import { readEnv } from '../../src/cli/config.ts';
import type { Logger } from '../../src/ports/index.ts';

// Just enough of Ironic's version discovery (GET / and GET /v1/) to negotiate `max`.
async function versionOnlyIronic(max: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const entry = { id: 'v1', version: max, min_version: '1.1', status: 'CURRENT' };
    const body = req.url === '/' ? { versions: [entry], default_version: entry } : req.url === '/v1/' || req.url === '/v1' ? { id: 'v1', version: entry } : null;
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json', 'X-OpenStack-Ironic-API-Minimum-Version': '1.1', 'X-OpenStack-Ironic-API-Maximum-Version': max });
    res.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function recordingLogger(lines: Array<{ level: string; obj: object; msg: string }>): Logger {
  const at = (level: string) => (obj: object, msg = ''): void => void lines.push({ level, obj, msg });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

const env = readEnv({});

test('one Ironic: the negotiated microversion is logged at info and reported by the provisioner', async (t) => {
  const ironic = await versionOnlyIronic('1.82');
  t.teardown(() => ironic.close());
  const lines: Array<{ level: string; obj: object; msg: string }> = [];
  const p = await ironicProvisioner({ urls: [ironic.url], imageCheck: false }, env, recordingLogger(lines));
  const info = lines.find((l) => l.level === 'info' && l.msg === 'negotiated the Ironic API version');
  t.deepEqual(info?.obj, { ironic: ironic.url, apiVersion: '1.82' });
  t.deepEqual(p.apiVersions?.(), [{ backend: `ironic:${new URL(ironic.url).host}`, version: '1.82' }]);
});

test('several Ironics: each endpoint\'s own version, through the routed provisioner', async (t) => {
  const [a, b] = await Promise.all([versionOnlyIronic('1.82'), versionOnlyIronic('1.96')]);
  t.teardown(() => Promise.all([a.close(), b.close()]).then(() => undefined));
  const p = await ironicProvisioner({ urls: [a.url, b.url], imageCheck: false }, env, recordingLogger([]));
  // 1.96 is newer than metalfleet needs but within what it knows: negotiated as offered.
  t.deepEqual(p.apiVersions?.().map((v) => v.version), ['1.82', '1.96']);
});

test('an Ironic that answers only after start: the version it negotiates then is logged at info too', async (t) => {
  // A port nothing listens on yet: the start finds Ironic down, as a node started before it.
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const lines: Array<{ level: string; obj: object; msg: string }> = [];
  const url = `http://127.0.0.1:${port}`;
  const p = await ironicProvisioner({ urls: [url], imageCheck: false }, env, recordingLogger(lines));
  t.true(lines.some((l) => l.level === 'warn' && l.msg === 'Ironic is not answering yet; hosts wait and retry'));

  const server = http.createServer((req, res) => {
    const entry = { id: 'v1', version: '1.82', min_version: '1.1', status: 'CURRENT' };
    const body = req.url === '/' ? { versions: [entry], default_version: entry } : req.url === '/v1/' ? { id: 'v1', version: entry } : { error_message: '{"faultstring": "not here"}' };
    res.writeHead(req.url === '/' || req.url === '/v1/' ? 200 : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  // A host's first call negotiates (its node is not found here; that does not matter).
  await p.hardwareState({ key: 'lab/late', spec: { bmc: { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'bmc' } }, credentials: { username: 'u', password: 'p' } } as never, { op: 'hardwareState' }).catch(() => undefined);
  t.deepEqual(p.apiVersions?.().map((v) => v.version), ['1.82']);
  const info = lines.find((l) => l.level === 'info' && l.msg === 'negotiated the Ironic API version');
  t.deepEqual(info?.obj, { ironic: url, apiVersion: '1.82' });
});
