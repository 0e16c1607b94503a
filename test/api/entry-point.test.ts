// metalfleet/api is what other controllers import (as Cluster API's Metal3 provider imports BMO's
// API types): the schemas, types, validation and BMC address parser, and none of the runtime.
import test from 'ava';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function importFresh(specifier: string): Promise<{ loaded: string[]; exports: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import=tsx', '--conditions=metalfleet-source', 'test/support/record-imports.mjs', specifier], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { loaded: string[]; exports: string[] });
    });
  });
}

// What a controller importing the API must not pay for: the actor runtime, NATS, the Kubernetes
// client, the wire codec, logging and metrics, and every layer above src/api.
const FORBIDDEN = [
  /\/node_modules\/nact\//, /\/node_modules\/@nats-io\//, /\/node_modules\/@kubernetes\//, /\/node_modules\/msgpackr/,
  /\/node_modules\/pino/, /\/node_modules\/prom-client\//, /\/node_modules\/commander\//,
  /\/src\/(actors|bus|cluster|adapters|cli|machines|sim|ports)\//,
];

test('api - metalfleet/api loads in a fresh process without the runtime, NATS or the Kubernetes client', async (t) => {
  const { loaded, exports } = await importFresh('metalfleet/api');
  t.true(loaded.some((url) => url.endsWith('/src/api/index.ts')), 'the entry point itself was recorded');
  const ours = loaded.filter((url) => url.includes('/src/'));
  t.true(ours.every((url) => url.includes('/src/api/')), ours.filter((url) => !url.includes('/src/api/')).join('\n'));
  t.deepEqual(loaded.filter((url) => FORBIDDEN.some((re) => re.test(url))), []);
  for (const name of [
    'BareMetalHost', 'BareMetalHostSpec', 'BareMetalHostStatus', 'validateBareMetalHost', 'parseBmcAddress',
    'MaasMachine', 'MaasCluster', 'MaasMachineTemplate', 'validateMaasMachine', 'validateMaasCluster', 'formatProviderId', 'parseProviderId',
  ]) t.true(exports.includes(name), `exports ${name}`);
});

test('api - the record of loaded modules sees a heavy import when there is one', async (t) => {
  // The check above cannot pass by recording nothing: the root entry point does load the runtime.
  const { loaded } = await importFresh('metalfleet');
  t.true(loaded.some((url) => /\/node_modules\/nact\//.test(url) || /\/src\/actors\//.test(url)), `${loaded.length} modules`);
});
