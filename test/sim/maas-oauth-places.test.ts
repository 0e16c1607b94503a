// OAuth credentials outside the Authorization header, signed by requests-oauthlib (Debian
// python3-requests-oauthlib) with signature_type "query" and "body". MAAS takes the oauth_* fields
// from the header, the query string or a POST form (maasserver/api/auth.py check_validity, whose
// own test_validity_report passes them as GET and POST data; piston3's is_valid_request and
// OAuthRequest.from_request). test/sim/python/check_maas_oauth_places.py reports; this file judges.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { checksFrom } from '../support/python-checks.ts';

// Debian's interpreter: the one python3-requests-oauthlib installs into (pyenv shims may lack it).
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/check_maas_oauth_places.py', import.meta.url));

type Seen = Record<string, unknown> & { check: string; status?: number; body?: unknown; oauth_in_query?: boolean; oauth_in_body?: boolean; header?: boolean };

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${PYTHON} ${SCRIPT} failed (${err.message}); run scripts/python-maas-install.sh if requests_oauthlib is missing. stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}

test('maas oauth places - credentials in the query string or a POST form are accepted, PLAINTEXT and HMAC-SHA1', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const out = await run([SCRIPT, sim.url, sim.adminKey]);
  t.false(out.includes(sim.adminKey.split(':')[2] ?? '-'), 'the script never prints a secret');
  const get = checksFrom<Seen>(out);

  for (const name of ['query_plaintext_whoami', 'query_hmac_whoami']) {
    t.like(get(name), { oauth_in_query: true, header: false }, `${name}: the client put the credentials in the query string`);
    t.is(get(name).status, 200, name);
    t.like(get(name).body as Record<string, unknown>, { username: 'admin', is_superuser: true }, name);
  }
  t.like(get('body_hmac_post'), { oauth_in_body: true, header: false, status: 200 });
  t.like(get('body_hmac_post').body as Record<string, unknown>, { name: 'py-oauth-body', comment: 'signed in the form' });
  t.like(get('body_plaintext_op'), { oauth_in_body: true, header: false, status: 200, body: 'OK', read_back: 'py-oauth-body' });

  // Wherever they are, the credentials are checked.
  for (const name of ['query_wrong_secret', 'body_hmac_wrong_secret']) {
    t.like(get(name), { status: 401, body: 'Authorization Error: Invalid API key.' }, name);
  }
  t.is(get.count, 9, 'every check reported');
});

test('maas list params - machines/ refuses a query key ReadNodesForm lacks with "No such constraint.", oauth_* fields included', async (t) => {
  const sim = await startMaasSim();
  t.teardown(() => sim.stop());
  const get = checksFrom<Seen>(await run([SCRIPT, sim.url, sim.adminKey]));

  // MAAS 3.5 NodesHandler.read: ReadNodesForm(data=request.GET), strict (ignore_unknown_constraints
  // False), so a misspelt filter is a 400 rather than every machine.
  t.like(get('header_machines_misspelt_filter'), { status: 400, content_type: 'application/json; charset=utf-8', body: { hostnames: ['No such constraint.'] } });
  const known = get('header_machines_known_filters');
  t.is(known.status, 200);
  t.deepEqual(known.zones, ['az1']);

  // Credentials in the query string are accepted, then read as constraints like any other key.
  const signedInQuery = get('query_hmac_machines');
  t.like(signedInQuery, { oauth_in_query: true, status: 400 });
  const fields = signedInQuery.body as Record<string, unknown>;
  t.deepEqual(Object.keys(fields).sort(), ['oauth_consumer_key', 'oauth_nonce', 'oauth_signature', 'oauth_signature_method', 'oauth_timestamp', 'oauth_token', 'oauth_version']);
  t.true(Object.values(fields).every((v) => JSON.stringify(v) === '["No such constraint."]'));
});
