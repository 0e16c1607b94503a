import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import type { MaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';

// Release with MAAS's erase flags (capmaas.md §3.2: erase, secure_erase, quick_erase), and the
// API key kept out of errors in every form it travels in, including the percent-encoded
// signature of a PLAINTEXT header when a proxy echoes the header back.

interface Seen { method: string; url: string; authorization: string; body: string }

async function withFake(apiKey: string, reply: (s: Seen) => { status: number; json?: unknown; text?: string }, fn: (c: MaasClient, seen: Seen[]) => Promise<void>): Promise<void> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization ?? '', body };
      seen.push(s);
      const r = reply(s);
      if (r.json !== undefined) res.writeHead(r.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(r.json));
      else res.writeHead(r.status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(r.text ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const c = createMaasClient({ endpoint: `http://127.0.0.1:${port}/MAAS`, apiKey, retries: { attempts: 1, baseMs: 1, maxMs: 1 } });
  try {
    await fn(c, seen);
  } finally {
    c.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const MACHINE = {
  system_id: 'abc123', hostname: 'node-1', fqdn: 'node-1.maas', status: 12, status_name: 'Disk erasing', power_state: 'on', power_type: 'ipmi',
  ip_addresses: [], zone: { id: 1, name: 'default' }, pool: { id: 0, name: 'default' }, domain: { id: 0, name: 'maas' }, osystem: '', distro_series: '',
  swap_size: null, memory: 8192, cpu_count: 4, storage: 100000, tag_names: [], owner: null, resource_uri: '/MAAS/api/2.0/machines/abc123/',
};

test('maas client - release sends quick_erase and secure_erase when asked, with op in the body', async (t) => {
  await withFake('ck1234:tk1234:ts1234567890', () => ({ status: 200, json: MACHINE }), async (c, seen) => {
    await c.release('abc123', { erase: true, quickErase: true });
    await c.release('abc123', { secureErase: true, quickErase: true });
    const [quick, secure] = seen as [Seen, Seen];
    t.is(quick.url, '/MAAS/api/2.0/machines/abc123/');
    t.is(quick.body, 'erase=true&op=release&quick_erase=true');
    t.is(secure.body, 'op=release&quick_erase=true&secure_erase=true');
  });
});

test('maas client - a token secret with reserved characters is not in an error that echoes the Authorization header', async (t) => {
  // MAAS generates alphanumeric secrets, but the client takes any printable ASCII: the header
  // carries it encoded twice (RFC 5849: enc(secret) in the signature, then the header encoding).
  const secret = 'Sx4+Mw9/Ck2=Rp7%Ln5';
  await withFake(`ck1234:tk1234:${secret}`, (s) => ({ status: 500, text: `proxy error; request had Authorization: ${s.authorization}` }), async (c, seen) => {
    const err = await t.throwsAsync(c.getMachine('abc123'), { instanceOf: MaasError });
    t.true(seen[0]?.authorization.includes('oauth_signature="%26'), 'the fake saw a PLAINTEXT header');
    const text = [err?.message ?? '', err?.maasMessage ?? '', String((err?.cause as Error | undefined)?.message)].join('\n');
    const enc = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
    for (const form of [secret, enc(secret), enc(enc(secret)), enc(`&${enc(secret)}`)]) t.false(text.includes(form), `the secret as ${form} leaked`);
    t.regex(text, /\*{6}/);
  });
});

test('maas client - allocate can leave out machines of one VM host type (not_pod_type), as CAPMAAS HCP does', async (t) => {
  await withFake('ck1234:tk1234:ts1234567890', () => ({ status: 200, json: { ...MACHINE, status: 10, status_name: 'Allocated' } }), async (c, seen) => {
    await c.allocate({ cpuCount: 2, memMb: 4096, notPod: true, notPodType: 'lxd' });
    t.is(seen[0]?.body, 'cpu_count=2&mem=4096&not_pod=true&not_pod_type=lxd&op=allocate');
  });
});

test('maas driver - an image name that cannot be split is a failure, not a transient to retry forever', async (t) => {
  await withFake('ck1234:tk1234:ts1234567890', (s) => ({ status: 200, json: s.url.includes('boot-resources') ? [] : MACHINE }), async (c, seen) => {
    const driver = createMaasDriver(c);
    for (const image of ['ubuntu/', '/jammy']) {
      const r = await driver.run({ op: 'deploy', systemId: 'abc123', image, ephemeral: false });
      t.is(r.kind, 'failed', image);
      t.regex(r.kind === 'failed' ? r.message : '', /empty (osystem|series)/);
    }
    const a = await driver.run({ op: 'allocate', agentName: 'ns/m1', cpuCount: 1, memMb: 1024, image: 'ubuntu/' });
    t.is(a.kind, 'failed');
    t.false(seen.some((s) => s.method === 'POST'), 'MAAS was asked nothing');
  });
});
