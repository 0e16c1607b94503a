// A MAAS API key the server rejects: the hint names where the key came from (MAAS_API_KEY,
// --maas-key, --maas-key-file FILE), so the user checks the right place; it never shows the key.
import test from 'ava';
import { createMaasClient, MaasError } from '../../src/adapters/maas/client/index.ts';
import { maasKeySource } from '../../src/cli/commands/node.ts';
import { maasSetup } from '../../src/cli/maas.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

const WRONG = 'wRoNgCoNsUmEr00000:wRoNgToKeN00000000:wRoNgSeCrEt000000000000000000000';

async function withSim(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const sim = await startMaasSim({});
  t.teardown(() => sim.stop());
  return sim.url;
}

test('maas key source - a rejected key from the environment says check MAAS_API_KEY', async (t) => {
  const endpoint = await withSim(t);
  const client = createMaasClient({ endpoint, apiKey: WRONG });
  t.teardown(() => client.close());
  const err = await t.throwsAsync(client.listMachines(), { instanceOf: MaasError });
  t.is(err?.code, 'unauthorized');
  t.regex(err?.message ?? '', /\(MAAS did not accept the API key or its signature: check MAAS_API_KEY, consumer_key:token_key:token_secret\)$/);
});

test('maas key source - a rejected key from --maas-key-file or --maas-key names that flag, not MAAS_API_KEY', async (t) => {
  const endpoint = await withSim(t);
  const file = '/etc/metalfleet/maas.key';
  const client = createMaasClient({ endpoint, apiKey: WRONG, keySource: `--maas-key-file ${file}` });
  t.teardown(() => client.close());
  const err = await t.throwsAsync(client.listMachines(), { instanceOf: MaasError });
  t.is(err?.code, 'unauthorized');
  t.regex(err?.message ?? '', /\(MAAS did not accept the API key or its signature: check --maas-key-file \/etc\/metalfleet\/maas\.key, consumer_key:token_key:token_secret\)$/);
  t.false((err?.message ?? '').includes('MAAS_API_KEY'));

  // Through the CLI's setup (demo --maas URL --maas-key KEY).
  const setup = await maasSetup({ url: endpoint, key: WRONG, keySource: '--maas-key' });
  t.teardown(() => setup.stop());
  const viaFlag = await t.throwsAsync(setup.driver.findDns('api.c1.maas'));
  t.regex(viaFlag?.message ?? '', /check --maas-key, consumer_key/);
  t.false((viaFlag?.message ?? '').includes('MAAS_API_KEY'));
  for (const part of WRONG.split(':')) {
    t.false(err?.message.includes(part) ?? true, 'no part of the key');
    t.false(viaFlag?.message.includes(part) ?? true, 'no part of the key');
  }
});

test('maas key source - a key source of several lines is refused, never echoing the key', (t) => {
  const err = t.throws(() => createMaasClient({ endpoint: 'http://127.0.0.1:9/MAAS', apiKey: WRONG, keySource: 'a\nb' }));
  t.regex(err?.message ?? '', /invalid option keySource: must be one line/);
  t.false((err?.message ?? '').includes('wRoNgSeCrEt'));
});

test('maas key source - metalfleet node names the flag or file it read the key from, and a path that is no one line by its flag alone', (t) => {
  t.is(maasKeySource({}), 'MAAS_API_KEY');
  t.is(maasKeySource({ maasKey: WRONG }), '--maas-key');
  t.is(maasKeySource({ maasKeyFile: '/etc/metalfleet/maas.key' }), '--maas-key-file /etc/metalfleet/maas.key');
  t.is(maasKeySource({ maasKeyFile: '/tmp/odd\nname' }), '--maas-key-file');
  t.is(maasKeySource({ maasKeyFile: `/${'d'.repeat(300)}` }), '--maas-key-file');
  // Accepted by the client as its key source (one line, at most 300 characters).
  for (const keySource of ['--maas-key-file /etc/metalfleet/maas.key', maasKeySource({ maasKeyFile: '/tmp/odd\nname' })]) {
    t.notThrows(() => createMaasClient({ endpoint: 'http://127.0.0.1:9/MAAS', apiKey: WRONG, keySource }).close());
  }
});
