// The node's NATS credentials apart from everyone else's (issue 33.8): with them an unsigned KV write
// turned a host off and an audit record could be forged, yet on Kubernetes they sat in the same
// Secret as the operator's password and locally node.env lay next to operator.env. Now each user's
// credentials are in a Secret and a folder of their own.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { DEV_CERTS_SCRIPT, ROOT } from '../support/secure-nats.ts';

const exec = promisify(execFile);
const USERS = ['node', 'operator', 'viewer'] as const;

interface Secret { metadata: { name: string }; stringData?: Record<string, string>; data?: Record<string, string> }

test('node credentials - deploy/secrets gives each NATS user its own Secret; none but the node\'s holds the node password', async (t) => {
  const docs = parseAllDocuments(await readFile(join(ROOT, 'deploy/secrets/nats.yaml'), 'utf8')).map((d) => d.toJS() as Secret);
  const byName = new Map(docs.map((d) => [d.metadata.name, d]));
  t.deepEqual([...byName.keys()].sort(), USERS.map((u) => `metalfleet-nats-${u}`).sort());
  const nodePassword = byName.get('metalfleet-nats-node')?.stringData?.password;
  t.truthy(nodePassword);
  for (const user of ['operator', 'viewer'] as const) {
    const secret = byName.get(`metalfleet-nats-${user}`);
    t.deepEqual(Object.keys(secret?.stringData ?? {}), ['password'], user);
    t.false(JSON.stringify(secret).includes(String(nodePassword)), `the ${user}'s Secret holds nothing of the node's`);
    t.false(JSON.stringify(secret).includes('node'), `the ${user}'s Secret names nothing of the node's`);
  }
});

async function filesUnder(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of await readdir(dir, { recursive: true })) {
    const file = join(dir, name);
    if ((await stat(file)).isFile()) out.set(file, await readFile(file, 'utf8'));
  }
  return out;
}

test('node credentials - the dev certs script writes the node password only into node/ and the server\'s own env', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-node-creds-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // A folder made by the earlier flat layout: its node.env beside operator.env must not survive.
  await writeFile(join(dir, 'node.env'), 'NATS_USER=node\nNATS_PASSWORD=old-flat-layout\n');
  await writeFile(join(dir, 'operator.env'), 'NATS_USER=operator\nNATS_PASSWORD=old-flat-layout\n');
  await exec('sh', [DEV_CERTS_SCRIPT, dir], { env: { ...process.env, NATS_PORT: '4998' } });
  const nodeEnv = await readFile(join(dir, 'node', 'node.env'), 'utf8');
  const nodePassword = /^NATS_PASSWORD=(.+)$/m.exec(nodeEnv)?.[1] ?? '';
  t.true(nodePassword.length >= 32);
  const nodeKey = await readFile(join(dir, 'node', 'key.pem'), 'utf8');
  const files = await filesUnder(dir);
  const holders = [...files].filter(([, text]) => text.includes(nodePassword)).map(([file]) => file.slice(dir.length + 1)).sort();
  t.deepEqual(holders, ['node/node.env', 'server.env'], 'the node password is in the node\'s folder and the server\'s env only');
  const keyHolders = [...files].filter(([, text]) => text.includes(nodeKey)).map(([file]) => file.slice(dir.length + 1));
  t.deepEqual(keyHolders, ['node/key.pem'], 'and its client key in its folder only');
  t.deepEqual((await readdir(join(dir, 'node'))).sort(), ['ca.pem', 'cert.pem', 'key.pem', 'node.env']);
  for (const user of ['operator', 'viewer'] as const) {
    const own = [...files].filter(([file]) => file.startsWith(join(dir, user)));
    t.true(own.length > 0);
    t.false(own.some(([, text]) => text.includes('NATS_USER=node')), `nothing of the node's in ${user}/`);
  }
  t.false(files.has(join(dir, 'node.env')), 'the flat layout\'s node.env is gone');
  t.false(files.has(join(dir, 'operator.env')));
});
