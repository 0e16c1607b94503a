// IRONIC_PASSWORD without IRONIC_USERNAME: refused naming both variables, never the password,
// not dropped without a word (the client then went to Ironic with no auth at all).
import test from 'ava';
import { ironicProvisioner } from '../../src/cli/backends.ts';
import { CliError } from '../../src/cli/cli-error.ts';
import { readEnv } from '../../src/cli/config.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import type { LogLine } from '../support/recording-logger.ts';

test('backends - IRONIC_PASSWORD without IRONIC_USERNAME is refused naming both, the password not quoted', async (t) => {
  const lines: LogLine[] = [];
  const err = await t.throwsAsync(ironicProvisioner({ urls: ['http://127.0.0.1:9'], imageCheck: false }, readEnv({ IRONIC_PASSWORD: 'pw-s3cret-x' }), recordingLogger(lines)), { instanceOf: CliError });
  t.regex(err?.message ?? '', /IRONIC_PASSWORD/);
  t.regex(err?.message ?? '', /IRONIC_USERNAME/);
  t.false((err?.message ?? '').includes('pw-s3cret-x'));
  t.is((err as CliError | undefined)?.exitCode, 2);
  t.false(JSON.stringify(lines).includes('pw-s3cret-x'));
});

test('backends - IRONIC_USERNAME with IRONIC_PASSWORD is not refused for the pair', async (t) => {
  const lines: LogLine[] = [];
  // Nothing listens on port 9: the provisioner is made and waits for Ironic (a retryable error).
  const p = await ironicProvisioner({ urls: ['http://127.0.0.1:9'], imageCheck: false }, readEnv({ IRONIC_USERNAME: 'u', IRONIC_PASSWORD: 'pw-s3cret-x' }), recordingLogger(lines)).catch((e: unknown) => e);
  t.false(p instanceof CliError && /IRONIC_USERNAME/.test(p.message), String(p));
});
