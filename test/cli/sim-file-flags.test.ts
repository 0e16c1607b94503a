// The simulators' file flags: a file that cannot be read is named with its flag and the reason in
// words ("no such file"), not an errno code after a bare path.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { metalfleet } from './run.ts';

test('sim - --fleet and --password-file that cannot be read name the flag and say why', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-sim-files-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const missing = join(dir, 'missing.yaml');
  const cases: Array<[string[], string]> = [
    [['sim', 'maas', '--fleet', missing], `metalfleet: --fleet ${missing}: cannot read: no such file`],
    [['sim', 'maas', '--fleet', dir], `metalfleet: --fleet ${dir}: cannot read: is a folder`],
    [['sim', 'redfish', '--password-file', missing], `metalfleet: --password-file ${missing}: cannot read: no such file`],
  ];
  for (const [args, line] of cases) {
    const r = await metalfleet(...args);
    t.is(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    t.is(r.stderr, `${line}\n`, args.join(' '));
    t.is(r.stdout, '', args.join(' '));
  }
});
