// The NATS options the CLI reads from flags and environment travel on (spread into connectNats,
// into error causes, into a debug dump): the password, token or seed in them must not show
// when they are printed, yet the transport must still read them to log in.
import test from 'ava';
import { inspect } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsOptionsFrom } from '../../src/cli/nats-options.ts';

const PASSWORD = 'pw-Secret-4711';
const TOKEN = 'tok-Secret-0815';
const SEED = 'SUACSSL3UAHUDXKFSNVUZRF5UHPMWZ6BFDTJ7M6USDXIEDNPPQYYYCU3VY';

const quiet = (): undefined => undefined;

function shows(value: unknown, secret: string): boolean {
  return inspect(value, { depth: 10, showHidden: false }).includes(secret) || JSON.stringify(value).includes(secret) || JSON.stringify({ ...value as object }).includes(secret);
}

test('nats options - the password, token and seed read from the environment do not show when the options are printed', async (t) => {
  const cases = [
    { env: { NATS_URL: 'nats://127.0.0.1:1', NATS_USER: 'alice', NATS_PASSWORD: PASSWORD }, secret: PASSWORD, field: 'pass' },
    { env: { NATS_URL: 'nats://127.0.0.1:1', NATS_TOKEN: TOKEN }, secret: TOKEN, field: 'token' },
    { env: { NATS_URL: 'nats://127.0.0.1:1', NATS_NKEY_SEED: SEED }, secret: SEED, field: 'nkeySeed' },
  ] as const;
  for (const c of cases) {
    const options = await natsOptionsFrom({}, { ...c.env }, 'n1', quiet);
    t.false(shows(options, c.secret), `${c.field} hidden from inspect and JSON`);
    // Still there for the transport to log in with.
    t.is((options.auth as Record<string, unknown> | undefined)?.[c.field], c.secret);
  }
});

test('nats options - a token read from --nats-token-file does not show when the options are printed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mf-nats-opts-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  await writeFile(file, `${TOKEN}\n`, { mode: 0o600 });
  const options = await natsOptionsFrom({ nats: 'nats://127.0.0.1:1', natsTokenFile: file }, {}, 'n1', quiet);
  t.false(shows(options, TOKEN));
  t.false(shows({ ...options, extra: 1 }, TOKEN), 'a spread of the options (as connectNats is given them) hides it too');
  t.is((options.auth as { token?: string } | undefined)?.token, TOKEN);
});
