// The numeric environment variables: one set but empty ("PROVISIONING_LIMIT=" in an env file) is
// refused naming it, as an empty IRONIC_USERNAME is, never read as 0 (for PROVISIONING_LIMIT that
// is no limit at all; for MAX_PROVISIONING_RETRIES, no retry).
import test from 'ava';
import { CliError } from '../../src/cli/cli-error.ts';
import { readEnv } from '../../src/cli/config.ts';

test('env - a numeric variable set but empty is refused naming it, not read as 0', (t) => {
  for (const name of ['PROVISIONING_LIMIT', 'MAX_PROVISIONING_RETRIES', 'METALFLEET_SHARDS']) {
    for (const value of ['', '  ']) {
      const error = t.throws(() => readEnv({ [name]: value }), { instanceOf: CliError }, `${name}=${JSON.stringify(value)}`);
      t.regex(error?.message ?? '', new RegExp(`^environment variable ${name}: is set but empty: unset it or give a whole number$`));
    }
  }
});

test('env - numeric variables unset take their defaults, and set ones are read', (t) => {
  const unset = readEnv({});
  t.is(unset.PROVISIONING_LIMIT, 20);
  t.is(unset.METALFLEET_SHARDS, 256);
  const set = readEnv({ PROVISIONING_LIMIT: '0', MAX_PROVISIONING_RETRIES: '7', METALFLEET_SHARDS: '64' });
  t.deepEqual([set.PROVISIONING_LIMIT, set.MAX_PROVISIONING_RETRIES, set.METALFLEET_SHARDS], [0, 7, 64]);
  t.throws(() => readEnv({ METALFLEET_SHARDS: '65537' }), { message: /^environment variable METALFLEET_SHARDS: / });
});
