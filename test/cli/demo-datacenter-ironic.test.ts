// `demo --datacenter N` with the user's own Ironic (--ironic URL): the flags accepted and refused,
// and what the demo then starts — the datacenter alone, pointed at that Ironic.
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { datacenterIronic } from '../../src/cli/demo/datacenter-flags.ts';
import { startPrivateIronic } from '../../src/cli/demo/private-ironic.ts';

const URL_A = 'http://127.0.0.1:6385';

test('--datacenter with one --ironic URL drives it with that Ironic; a bare --ironic or none starts a private one', (t) => {
  t.is(datacenterIronic({ datacenter: 3, ironic: [URL_A], hostsGiven: false }), URL_A);
  t.is(datacenterIronic({ datacenter: 3, ironic: true, hostsGiven: false }), null);
  t.is(datacenterIronic({ datacenter: 3, hostsGiven: false }), null);
  // Without --datacenter, --ironic URLs are the demo's ordinary concern.
  t.is(datacenterIronic({ ironic: [URL_A, 'http://127.0.0.1:6386'], hostsGiven: true }), null);
});

test('--datacenter still refuses what names other hosts, and several Ironics', (t) => {
  const refused = (f: Parameters<typeof datacenterIronic>[0], pattern: RegExp): void => {
    const err = t.throws(() => datacenterIronic(f), { instanceOf: CliError });
    t.regex(err?.message ?? '', pattern);
    t.is((err as CliError | undefined)?.exitCode, 2);
  };
  refused({ datacenter: 2, ironic: [URL_A, 'http://127.0.0.1:6386'], hostsGiven: false }, /several --ironic URLs/);
  refused({ datacenter: 2, ironic: [URL_A], hostsGiven: true }, /--hosts/);
  refused({ datacenter: 2, ironic: [URL_A], hostsGiven: false, file: ['x.yaml'] }, /--file/);
  refused({ datacenter: 2, ironic: [URL_A], hostsGiven: false, ironicDriver: 'fake-hardware' }, /--ironic-driver/);
});

test('with an external Ironic only the datacenter starts, its agents and ISO pointed at that Ironic', async (t) => {
  const backend = await startPrivateIronic({ servers: 2, externalIronic: URL_A });
  t.teardown(() => backend.stop());
  t.is(backend.url, URL_A);
  t.is(backend.datacenter?.systems.length, 2);
  t.truthy(backend.deploy?.isoUrl);
  t.regex(backend.banner, /driven by your Ironic at http:\/\/127\.0\.0\.1:6385/);
  t.regex(backend.banner, /http_root must be \S+ and http_url http:\/\/127\.0\.0\.1:\d+/);
  t.notRegex(backend.banner, /private Ironic/);
  t.regex(backend.banner, /require_tls = false/);
});
