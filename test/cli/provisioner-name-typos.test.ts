// A mistyped --provisioner or --provisioner-option name is refused with the names loaded and, as
// for every other word of the command line, the one most likely meant.
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { fixtureBuiltin } from '../../src/cli/builtin-provisioners.ts';
import { selectProvisioner } from '../../src/cli/provisioners.ts';
import { silentLogger } from '../../src/ports/index.ts';

const o = { builtins: [fixtureBuiltin(0)], defaultName: 'fixture', cwd: process.cwd(), log: silentLogger, warn: () => undefined };

test('provisioner names - a mistyped --provisioner suggests the loaded one meant', async (t) => {
  const err = await t.throwsAsync(selectProvisioner({ ...o, flags: { provisioner: 'fixtrue' } }), { instanceOf: CliError });
  t.regex(err?.message ?? '', /^--provisioner provisioner plugin fixtrue: no such provisioner \(known for BareMetalHost: fixture\); did you mean fixture\?$/);
  t.is(err?.exitCode, 2);
});

test('provisioner names - a mistyped --provisioner-option name suggests the loaded one meant', async (t) => {
  const err = await t.throwsAsync(selectProvisioner({ ...o, flags: { provisionerOption: ['fixtrue.latencyMs=5'] } }), { instanceOf: CliError });
  t.regex(err?.message ?? '', /^--provisioner-option fixtrue\.…: no provisioner "fixtrue" is loaded \(known: fixture\); did you mean fixture\?$/);
});
