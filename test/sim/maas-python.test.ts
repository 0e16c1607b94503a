// Python's requests + requests-oauthlib (Debian python3-requests-oauthlib) against the simulated
// MAAS: a real third-party OAuth signer, multipart from requests' files= (also a real upload to
// files/), MAAS's error answers.
// test/sim/python/check_maas.py reports what it saw, one JSON line per check; this file judges.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { checksFrom } from '../support/python-checks.ts';

// Debian's interpreter: the one python3-requests-oauthlib installs into (pyenv shims may lack it).
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/check_maas.py', import.meta.url));

type Seen = Record<string, unknown> & { check: string; status?: number; body?: unknown; content_type?: string | null; error?: string };

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${PYTHON} ${SCRIPT} failed (${err.message}); run scripts/python-maas-install.sh if requests_oauthlib is missing. stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}

test('maas python - requests-oauthlib: PLAINTEXT and HMAC-SHA1, multipart and urlencoded, MAAS error answers', async (t) => {
  const sim = await startMaasSim({ deployMs: 100 });
  t.teardown(() => sim.stop());
  const out = await run([SCRIPT, sim.url, sim.adminKey, sim.userKey]);
  t.false(out.includes(sim.adminKey.split(':')[2] ?? '-'), 'the script never prints a secret');
  const get = checksFrom<Seen>(out);
  const json = (name: string) => get(name).body as Record<string, unknown>;

  t.is(get('version_anonymous').status, 200);
  t.true((json('version_anonymous').capabilities as string[]).includes('networks-management'));

  for (const name of ['whoami_plaintext', 'whoami_hmac']) {
    t.is(get(name).status, 200, name);
    t.like(json(name), { username: 'admin', is_superuser: true, resource_uri: '/MAAS/api/2.0/users/admin/' }, name);
  }
  t.like(json('whoami_user_key'), { username: 'user', is_superuser: false });

  t.deepEqual([get('hmac_query_repeated').status, get('hmac_query_repeated').count], [200, 4]);
  t.is(get('hmac_urlencoded_post').status, 200);
  t.like(json('hmac_urlencoded_post'), { name: 'py-urlencoded', comment: 'a b&c=d ü' });
  t.is(get('hmac_multipart_post').sent_type, 'multipart/form-data');
  t.is(get('hmac_multipart_post').status, 200);
  t.like(json('hmac_multipart_post'), { name: 'py-multipart', comment: 'line 1\r\nline 2' });

  t.is(get('mime_multipart_like_maas_cli').status, 200);
  t.like(json('mime_multipart_like_maas_cli'), { name: 'py-mime', comment: 'from the email package, ünïcode' });
  t.like(get('multipart_deploy_user_data'), { step: 'deploy', status: 200, status_name: 'Deploying', distro_series: 'jammy' });
  t.like(get('multipart_set_config'), { status: 200, body: 'OK', read_back: 'py-lab' });
  t.like(get('token_lifecycle'), { status: 200, name: 'py', before: 200, deleted: 204, after: 401 });

  // ipaddresses/: reserve (HMAC-signed, urlencoded), the address listed, taken once reserved, released.
  const reserved = get('ipaddresses_reserve_release');
  t.is(reserved.status, 200);
  const vip = (reserved.body as { ip?: string }).ip ?? '';
  t.like(reserved.body as Record<string, unknown>, { alloc_type: 4, alloc_type_name: 'User reserved' });
  t.deepEqual(reserved.listed, [vip]);
  t.like(reserved, { taken_status: 404, taken_body: `The IP address ${vip} is already in use.`, released: 204, after: [] });

  for (const name of ['wrong_secret', 'unknown_key', 'no_credentials']) {
    t.like(get(name), { status: 401, body: 'Authorization Error: Invalid API key.' }, name);
  }
  const invalid = get('validation_error');
  t.is(invalid.status, 400);
  t.regex(invalid.content_type ?? '', /^application\/json/);
  t.true(Array.isArray(json('validation_error').name), 'a field dict: {"name": ["..."]}');

  t.like(get('not_found'), { status: 404, body: 'No Machine matches the given query.' });
  t.like(get('method_not_allowed'), { status: 405, allow: 'GET' });
  t.like(get('unknown_op'), { status: 400, body: 'Unrecognised signature: method=GET op=frobnicate' });
  t.like(get('missing_trailing_slash'), { status: 404, redirects: 0, body: 'Unknown API endpoint: /MAAS/api/2.0/machines.' });
  t.like(get('files_roundtrip'), { put: 201, raw_equal: true, json_equal: true, listed: ['py-state'], anon: 200, anon_equal: true, deleted: 204, after: 404, workaround: 'bug1123986' });
  t.is(get.count, 21, 'every check reported');
});
