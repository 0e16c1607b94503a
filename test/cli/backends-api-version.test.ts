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
