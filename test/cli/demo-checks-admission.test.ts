// demo -f checks a file's hosts by the same rules as validate (BMO's admission rules, as the
// webhook applies them), every error of every object, each named by file:line:column, and
// starts nothing when any is found. It used to admit the BMC types the built-in Ironic backend
// listed (ilo4 among them), and to skip the admission rules of a host whose schema had failed.
import { join } from 'node:path';
import test from 'ava';
import { lines, metalfleet } from './run.ts';
import { LAB_BMC_SECRET, withFiles } from './manifest-files.ts';

const SECRET = LAB_BMC_SECRET;

function host(name: string, spec: string): string {
  return `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: ${name}
  namespace: lab
spec:
  online: true
${spec}`;
}

const IMAGE = `  image:
    url: http://example.test/image.qcow2
    checksum: http://example.test/image.qcow2.sha256
`;

// Each host is wrong in its own way; dup-a and dup-b share a boot MAC.
const INVALID = [
  SECRET,
  // An unknown BMC type and an image without a checksum: both errors, not only the first.
  host('ilo', `  bootMACAddress: "52:54:00:00:00:01"
  bmc:
    address: ilo4://192.0.2.1
    credentialsName: bmc
  image:
    url: http://example.test/image.qcow2
`),
  host('bad-mac', `  bootMACAddress: "52:54:00:zz:00:02"
  bmc:
    address: ipmi://192.0.2.2
    credentialsName: bmc
${IMAGE}`),
  host('dup-a', `  bootMACAddress: "52:54:00:00:00:03"
  bmc:
    address: redfish://192.0.2.3/redfish/v1/Systems/1
    credentialsName: bmc
${IMAGE}`),
  host('dup-b', `  bootMACAddress: "52:54:00:00:00:03"
  bmc:
    address: redfish://192.0.2.4/redfish/v1/Systems/1
    credentialsName: bmc
${IMAGE}`),
  // A schema error (a negative size) beside a rule's (a device name that is no /dev path).
  host('hints', `  bootMACAddress: "52:54:00:00:00:05"
  bmc:
    address: redfish://192.0.2.5/redfish/v1/Systems/1
    credentialsName: bmc
${IMAGE}  rootDeviceHints:
    deviceName: sda
    minSizeGigabytes: -3
`),
].join('---\n');

function withFile(text: string, run: (file: string) => Promise<void>): Promise<void> {
  return withFiles({ 'hosts.yaml': text }, (dir) => run(join(dir, 'hosts.yaml')));
}

const HEADER = 'metalfleet: invalid input, the demo did not start:';

/** demo -f's errors: the lines after its header. */
function demoErrors(stderr: string): string[] {
  const all = lines(stderr);
  const at = all.indexOf(HEADER);
  return at === -1 ? [] : all.slice(at + 1);
}

test('demo-checks - demo -f reports the same errors as validate, each at file:line:column, and starts no host', async (t) => {
  await withFile(INVALID, async (file) => {
    const [validate, demo] = await Promise.all([
      metalfleet('validate', file),
      metalfleet('demo', '-f', file, '--latency', '0', '--json', '--timeout', '5'),
    ]);
    t.is(validate.code, 1, validate.stderr);
    t.is(demo.code, 1, demo.stderr);
    t.true(lines(demo.stderr).includes(HEADER), demo.stderr);
    // Nothing ran: no summary on stdout.
    t.is(demo.stdout, '');
    const expected = lines(validate.stdout);
    t.deepEqual([...demoErrors(demo.stderr)].sort(), [...expected].sort());
    // The rules that used to be missed from demo -f, by name and place.
    t.true(expected.some((l) => l.startsWith(`${file}:19:5: BareMetalHost lab/ilo: spec.bmc.address: Unknown BMC type 'ilo4'`)), expected.join('\n'));
    t.true(expected.includes(`${file}:10:1: BareMetalHost lab/ilo: spec.image.checksum: checksum is required for normal images`), expected.join('\n'));
    t.true(expected.includes(`${file}:31:3: BareMetalHost lab/bad-mac: spec.bootMACAddress: address 52:54:00:zz:00:02: invalid MAC address`), expected.join('\n'));
    t.true(expected.some((l) => l.startsWith(`${file}:85:5: BareMetalHost lab/hints: spec.rootDeviceHints.minSizeGigabytes: `)), expected.join('\n'));
    t.true(expected.includes(`${file}:84:5: BareMetalHost lab/hints: spec.rootDeviceHints.deviceName: device name of root device hint must be a /dev/ path, not "sda"`), expected.join('\n'));
    t.false(demo.stderr.includes('never-echo-me') || validate.stdout.includes('never-echo-me'));
  });
});

test('demo-checks - one host with an unknown BMC type is refused by demo -f as by validate', async (t) => {
  const text = [SECRET, host('ilo', `  bootMACAddress: "52:54:00:00:00:01"
  bmc:
    address: ilo4://192.0.2.1
    credentialsName: bmc
${IMAGE}`)].join('---\n');
  await withFile(text, async (file) => {
    const [validate, demo] = await Promise.all([
      metalfleet('validate', file),
      metalfleet('demo', '-f', file, '--latency', '0', '--json', '--timeout', '5'),
    ]);
    t.is(validate.code, 1, validate.stderr);
    t.is(demo.code, 1, demo.stderr);
    t.is(demo.stdout, '');
    t.is(lines(validate.stdout).length, 1);
    t.deepEqual(demoErrors(demo.stderr), lines(validate.stdout));
  });
});

test('demo-checks - a scheme a --plugin declares is admitted by demo -f as by validate, and only with it', async (t) => {
  const HOSTS = 'test/fixtures/plugins/lab-hosts.yaml';
  const [validate, demo] = await Promise.all([
    metalfleet('validate', HOSTS),
    metalfleet('demo', '-f', HOSTS, '--latency', '0', '--json', '--timeout', '5'),
  ]);
  t.is(validate.code, 1);
  t.is(demo.code, 1, demo.stderr);
  t.is(demo.stdout, '');
  t.deepEqual([...demoErrors(demo.stderr)].sort(), [...lines(validate.stdout)].sort());
  t.regex(validate.stdout, /Unknown BMC type 'lab'/);
  const [validateWith, demoWith] = await Promise.all([
    metalfleet('validate', HOSTS, '--plugin', './examples/provisioner-plugin'),
    metalfleet('demo', '-f', HOSTS, '--plugin', './examples/provisioner-plugin', '--provisioner', 'lab', '--latency', '0', '--json', '--timeout', '5', '--log-level', 'silent'),
  ]);
  t.is(validateWith.code, 0, validateWith.stdout);
  // Admitted, the hosts ran (the file's ipmi hosts then fail registering with the lab backend,
  // so the run itself may not end ok): a summary, and no refusal.
  t.false(demoWith.stderr.includes(HEADER), demoWith.stderr);
  const summary = JSON.parse(lines(demoWith.stdout).at(-1) ?? '{}') as { hosts?: number };
  t.is(summary.hosts, 4);
});
