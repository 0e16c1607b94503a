// The simulator's meta API and transport as MAAS clients meet them first: version/, describe/,
// users/, account/, maas/ config, multipart bodies, MAAS's 404 for a path without its slash, 405.
import http from 'node:http';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function plaintext(key: string): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  return `OAuth realm="MAAS API", oauth_consumer_key="${ck}", oauth_token="${tk}", oauth_signature_method="PLAINTEXT", oauth_signature="%26${ts}", oauth_timestamp="${Math.floor(Date.now() / 1000)}", oauth_nonce="${Math.random().toString(36).slice(2)}"`;
}

interface Send {
  key?: string | null;
  body?: string | Buffer;
  contentType?: string;
}

function send(sim: MaasSim, method: string, path: string, o: Send = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = o.key === undefined ? sim.adminKey : o.key;
  if (key !== null) headers.Authorization = plaintext(key);
  if (o.contentType !== undefined) headers['Content-Type'] = o.contentType;
  if (o.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(o.body));
  const url = path.startsWith('/') ? `${sim.url.replace(/\/MAAS$/, '')}${path}` : `${sim.url}/api/2.0/${path}`;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

const form = (pairs: Array<[string, string]>) => ({ body: pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'), contentType: 'application/x-www-form-urlencoded' });

function multipart(pairs: Array<[string, string]>, boundary = 'sim-boundary-42') {
  const body = `${pairs.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')}--${boundary}--\r\n`;
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function started(t: ExecutionContext, options: Parameters<typeof startMaasSim>[0] = {}): Promise<MaasSim> {
  const sim = await startMaasSim(options);
  t.teardown(() => sim.stop());
  return sim;
}

test('maas meta - version/ answers without credentials, with MAAS capabilities as gomaasapi reads them', async (t) => {
  const sim = await started(t);
  for (const key of [null, sim.adminKey, 'bogus:bogus:bogus']) {
    const r = await send(sim, 'GET', 'version/', { key });
    t.is(r.status, 200);
    t.regex(r.headers['content-type'] ?? '', /^application\/json/);
    const v = JSON.parse(r.text) as { capabilities: string[]; version: string; subversion: string };
    t.true(['networks-management', 'static-ipaddresses', 'ipv6-deployment-ubuntu', 'devices-management', 'storage-deployment-ubuntu', 'network-deployment-ubuntu'].every((c) => v.capabilities.includes(c)));
    t.is(typeof v.version, 'string');
    t.is(v.subversion, '');
  }
  t.is((await send(sim, 'POST', 'version/', { key: null })).status, 405);
  const unslashed = await send(sim, 'GET', '/MAAS/api/version?x=1', { key: null });
  t.deepEqual([unslashed.status, unslashed.headers.location], [301, '/MAAS/api/version/?x=1'], 'outside 2.0/, Django appends the slash');
  const root = await send(sim, 'GET', '/MAAS/api/version/', { key: null });
  t.deepEqual([root.status, root.text], [200, '2.0']);
  const old = await send(sim, 'GET', '/MAAS/api/1.0/nodes/', { key: null });
  t.deepEqual([old.status, old.text], [410, 'The 1.0 API is no longer available. Please use API version 2.0.']);
});

test('maas meta - users/?op=whoami names the key\'s user; a bad key is 401; users/ lists both', async (t) => {
  const sim = await started(t);
  const admin = await send(sim, 'GET', 'users/?op=whoami');
  t.is(admin.status, 200);
  t.deepEqual(JSON.parse(admin.text), { is_superuser: true, username: 'admin', email: 'admin@example.com', is_local: true, resource_uri: '/MAAS/api/2.0/users/admin/' });
  const user = JSON.parse((await send(sim, 'GET', 'users/?op=whoami', { key: sim.userKey })).text) as { username: string; is_superuser: boolean };
  t.deepEqual([user.username, user.is_superuser], ['user', false]);
  const bad = await send(sim, 'GET', 'users/?op=whoami', { key: `${sim.adminKey.split(':').slice(0, 2).join(':')}:wrong` });
  t.deepEqual([bad.status, bad.text], [401, 'Authorization Error: Invalid API key.']);
  t.is((await send(sim, 'GET', 'users/?op=whoami', { key: null })).status, 401);
  const list = JSON.parse((await send(sim, 'GET', 'users/', { key: sim.userKey })).text) as Array<{ username: string }>;
  t.deepEqual(list.map((u) => u.username), ['admin', 'user']);
  t.is((await send(sim, 'GET', 'users/user/')).status, 200);
  const missing = await send(sim, 'GET', 'users/nobody/');
  t.deepEqual([missing.status, missing.text], [404, 'No User matches the given query.']);
});

test('maas meta - a token made through account/ is accepted until it is deleted', async (t) => {
  const sim = await started(t);
  const made = await send(sim, 'POST', 'account/?op=create_authorisation_token', form([['name', 'ci']]));
  t.is(made.status, 200, made.text);
  const token = JSON.parse(made.text) as { consumer_key: string; token_key: string; token_secret: string; name: string };
  t.is(token.name, 'ci');
  t.regex(token.consumer_key, /^[A-Za-z0-9]{18}$/);
  t.regex(token.token_secret, /^[A-Za-z0-9]{32}$/);
  const key = `${token.consumer_key}:${token.token_key}:${token.token_secret}`;
  t.is(JSON.parse((await send(sim, 'GET', 'users/?op=whoami', { key })).text).username, 'admin');

  const listed = JSON.parse((await send(sim, 'GET', 'account/?op=list_authorisation_tokens', { key })).text) as Array<{ name: string; token: string }>;
  t.deepEqual(listed, [{ name: 'MAAS consumer', token: sim.adminKey }, { name: 'ci', token: key }]);
  // Nobody sees another user's tokens, nor deletes them.
  t.is((JSON.parse((await send(sim, 'GET', 'account/?op=list_authorisation_tokens', { key: sim.userKey })).text) as unknown[]).length, 1);
  const foreign = await send(sim, 'POST', 'account/?op=delete_authorisation_token', { key: sim.userKey, ...form([['token_key', token.token_key]]) });
  t.deepEqual([foreign.status, foreign.text], [404, 'No Token matches the given query.']);
  const noKey = await send(sim, 'POST', 'account/?op=delete_authorisation_token', form([]));
  t.deepEqual([noKey.status, noKey.text], [400, 'No provided token_key!']);

  t.is((await send(sim, 'POST', 'account/?op=delete_authorisation_token', form([['token_key', token.token_key]]))).status, 204);
  t.is((await send(sim, 'GET', 'users/?op=whoami', { key })).status, 401);
  t.is((await send(sim, 'GET', 'users/?op=whoami')).status, 200, 'the original key still works');
});

test('maas meta - maas/ get_config and set_config: defaults, admin only, form errors as MAAS words them', async (t) => {
  const sim = await started(t);
  const get = async (name: string) => {
    const r = await send(sim, 'GET', `maas/?op=get_config&name=${name}`, { key: sim.userKey });
    return [r.status, r.text] as const;
  };
  t.deepEqual(await get('default_distro_series'), [200, '"noble"']);
  t.deepEqual(await get('enable_disk_erasing_on_release'), [200, 'false']);
  t.deepEqual(await get('kernel_opts'), [200, 'null']);
  t.deepEqual(await get('ntp_server'), [200, '"ntp.ubuntu.com"'], 'the old singular name still works');

  const unknown = await send(sim, 'GET', 'maas/?op=get_config&name=no_such');
  t.is(unknown.status, 400);
  t.regex(unknown.headers['content-type'] ?? '', /^application\/json/);
  t.regex((JSON.parse(unknown.text) as Record<string, string[]>).no_such?.[0] ?? '', /^no_such is not a valid config setting \(valid settings are: maas_name, /);
  t.deepEqual([(await send(sim, 'GET', 'maas/?op=get_config')).text], ['No provided name!']);

  const forbidden = await send(sim, 'POST', 'maas/?op=set_config', { key: sim.userKey, ...form([['name', 'maas_name'], ['value', 'x']]) });
  t.deepEqual([forbidden.status, forbidden.text], [403, 'This method is reserved for admin users.']);
  const set = await send(sim, 'POST', 'maas/', form([['op', 'set_config'], ['name', 'maas_name'], ['value', 'lab']]));
  t.deepEqual([set.status, set.text], [200, 'OK']);
  t.deepEqual(await get('maas_name'), [200, '"lab"']);
  const notInt = await send(sim, 'POST', 'maas/?op=set_config', form([['name', 'default_dns_ttl'], ['value', 'soon']]));
  t.deepEqual([notInt.status, notInt.text], [400, '{"default_dns_ttl": ["Enter a whole number."]}']);
  const noValue = await send(sim, 'POST', 'maas/?op=set_config', form([['name', 'maas_name']]));
  t.deepEqual([noValue.status, noValue.text], [400, 'No provided value!']);
});

test('maas meta - enable_disk_erasing_on_release set through maas/ makes a release erase disks', async (t) => {
  const sim = await started(t, { releaseMs: 60_000 });
  t.is((await send(sim, 'POST', 'maas/?op=set_config', form([['name', 'enable_disk_erasing_on_release'], ['value', 'true']]))).status, 200);
  const m = JSON.parse((await send(sim, 'POST', 'machines/?op=allocate', form([]))).text) as { system_id: string };
  const released = await send(sim, 'POST', `machines/${m.system_id}/?op=release`, form([]));
  t.is(released.status, 200, released.text);
  t.is((JSON.parse(released.text) as { status_name: string }).status_name, 'Disk erasing');
});

test('maas meta - describe/ names MAAS handlers with absolute URIs, without credentials', async (t) => {
  const sim = await started(t);
  const r = await send(sim, 'GET', 'describe/', { key: null });
  t.is(r.status, 200);
  const d = JSON.parse(r.text) as {
    doc: string;
    hash: string;
    handlers: Array<{ name: string; path: string; uri: string; params: string[]; actions: Array<{ name: string; method: string; op: string | null; restful: boolean }> }>;
    resources: Array<{ name: string; anon: unknown; auth: unknown }>;
  };
  t.is(d.doc, 'MAAS API');
  t.regex(d.hash, /^[0-9a-f]{40}$/);
  const machine = d.handlers.find((h) => h.name === 'MachineHandler');
  t.is(machine?.path, '/MAAS/api/2.0/machines/{system_id}/');
  t.is(machine?.uri, `${sim.url}/api/2.0/machines/{system_id}/`);
  t.deepEqual(machine?.params, ['system_id']);
  t.deepEqual(machine?.actions.find((a) => a.name === 'deploy'), { method: 'POST', name: 'deploy', doc: 'POST /MAAS/api/2.0/machines/{system_id}/ op=deploy', op: 'deploy', restful: false });
  t.deepEqual(machine?.actions.find((a) => a.name === 'read'), { method: 'GET', name: 'read', doc: 'GET /MAAS/api/2.0/machines/{system_id}/', op: null, restful: true });
  t.truthy(d.resources.find((x) => x.name === 'VersionHandler')?.anon);
  t.is(d.resources.find((x) => x.name === 'VersionHandler')?.auth, null);
  t.truthy(d.handlers.find((h) => h.name === 'UsersHandler')?.actions.find((a) => a.op === 'whoami'));
});

test('maas meta - a multipart body is read like a urlencoded one; a broken one is 400, JSON is 415', async (t) => {
  const sim = await started(t);
  const made = await send(sim, 'POST', 'tags/', multipart([['name', 'multi'], ['comment', 'line one\r\nline two']]));
  t.is(made.status, 200, made.text);
  t.is((JSON.parse(made.text) as { name: string }).name, 'multi');
  const again = await send(sim, 'POST', 'tags/', multipart([['name', 'multi']]));
  t.deepEqual([again.status, JSON.parse(again.text)], [400, { name: ['Tag with this Name already exists.'] }]);
  // op in a multipart body dispatches, as Django puts it in request.POST.
  const m = JSON.parse((await send(sim, 'POST', 'machines/', multipart([['op', 'allocate'], ['zone', 'az2']]))).text) as { zone: { name: string } };
  t.is(m.zone.name, 'az2');
  const broken = await send(sim, 'POST', 'tags/', { body: 'name=x', contentType: 'multipart/form-data; boundary=nope' });
  t.is(broken.status, 400);
  const json = await send(sim, 'POST', 'tags/', { body: '{"name":"x"}', contentType: 'application/json' });
  t.is(json.status, 415);
});

test('maas meta - a path without its trailing slash is MAAS\'s catch-all 404 for every method, before auth', async (t) => {
  const sim = await started(t);
  for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
    for (const key of [sim.adminKey, null]) {
      const r = await send(sim, method, 'machines', { key });
      t.is(r.status, 404, `${method} ${key === null ? 'anonymous' : 'signed'}`);
      t.is(r.text, 'Unknown API endpoint: /MAAS/api/2.0/machines.');
      t.is(r.headers['content-type'], 'text/plain; charset=utf-8');
    }
  }
  t.is((await send(sim, 'GET', 'version', { key: null })).text, 'Unknown API endpoint: /MAAS/api/2.0/version.');
  t.is((await send(sim, 'GET', 'no/such/thing/')).text, 'Unknown API endpoint: /MAAS/api/2.0/no/such/thing/.');
  const unread = await send(sim, 'POST', 'machines', { body: '{}', contentType: 'application/json' });
  t.is(unread.status, 404, 'the body of an unknown path is never read');
});

test('maas meta - a method the resource lacks is 405 with Allow; an unknown op is 400', async (t) => {
  const sim = await started(t);
  const r = await send(sim, 'DELETE', 'users/');
  t.is(r.status, 405);
  t.is(r.headers.allow, 'GET');
  t.is(r.text, '');
  const op = await send(sim, 'GET', 'users/?op=nope');
  t.deepEqual([op.status, op.text], [400, 'Unrecognised signature: method=GET op=nope']);
});

test('maas meta - boot-resources/ shows a synced Ubuntu image per LTS for each fleet architecture', async (t) => {
  const sim = await started(t, { machines: [{ hostname: 'arm-01', cpuCount: 4, memoryMb: 8192, architecture: 'arm64/generic' }, { hostname: 'x86-01', cpuCount: 4, memoryMb: 8192 }] });
  const r = await send(sim, 'GET', 'boot-resources/', { key: sim.userKey });
  t.is(r.status, 200, r.text);
  const list = JSON.parse(r.text) as Array<{ id: number; type: string; name: string; architecture: string; resource_uri: string }>;
  // A synced Ubuntu image's subarch is its kernel: one resource per kernel (GA and HWE) and architecture.
  t.deepEqual([...new Set(list.map((x) => x.architecture.split('/')[0]))], ['amd64', 'arm64']);
  t.deepEqual(list.filter((x) => x.name === 'ubuntu/jammy').map((x) => x.architecture), ['amd64/ga-22.04', 'amd64/hwe-22.04', 'arm64/ga-22.04', 'arm64/hwe-22.04']);
  t.deepEqual([...new Set(list.map((x) => x.name))], ['ubuntu/focal', 'ubuntu/jammy', 'ubuntu/noble']);
  t.true(list.every((x) => x.type === 'Synced' && x.resource_uri === `/MAAS/api/2.0/boot-resources/${x.id}/`));
  const one = await send(sim, 'GET', `boot-resources/${list[0]?.id}/`);
  t.like(JSON.parse(one.text), { ...list[0], sets: {} });
  t.deepEqual(JSON.parse((await send(sim, 'GET', 'boot-resources/?type=uploaded')).text), []);
  t.is((await send(sim, 'GET', 'boot-resources/?type=bogus')).status, 400);
  t.is((await send(sim, 'GET', 'boot-resources/?op=is_importing')).text, 'false');
  t.is((await send(sim, 'POST', 'boot-resources/?op=import', { key: sim.userKey })).status, 403);
  t.is((await send(sim, 'GET', 'boot-resources/999/')).status, 404);
});
