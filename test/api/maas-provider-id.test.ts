import test from 'ava';
import { formatProviderId, parseProviderId, type ProviderIdErrorCode } from '../../src/api/maas/index.ts';

// The providerID as CAPMAAS writes it (maas:///<zone>/<system_id>) and reads it
// (^[^:]+://.*[^/]$, the id after the last "/"): reference/capmaas.md §1.4.

test('provider id - format writes three slashes', (t) => {
  t.is(formatProviderId('az1', 'abc123'), 'maas:///az1/abc123');
});

test('provider id - format and parse round trip', (t) => {
  for (const [zone, systemId] of [['az1', 'abc123'], ['default', '4y3h7n'], ['zone-b.rack.2', 'x'], ['', 'abc123']] as const) {
    const parsed = parseProviderId(formatProviderId(zone, systemId));
    t.deepEqual(parsed, { ok: true, provider: 'maas', zone, systemId }, `${zone}/${systemId}`);
  }
});

test('provider id - format refuses parts that would not read back', (t) => {
  t.throws(() => formatProviderId('az1', ''), { instanceOf: RangeError });
  t.throws(() => formatProviderId('az1', 'a/b'), { instanceOf: RangeError });
  t.throws(() => formatProviderId('a/z', 'abc'), { instanceOf: RangeError });
  t.throws(() => formatProviderId('az1', 'ab\nc'), { instanceOf: RangeError });
});

test('provider id - the looser forms CAPMAAS also reads', (t) => {
  // The Go doc comment's form: the zone is the host part.
  t.deepEqual(parseProviderId('maas://az1/abc123'), { ok: true, provider: 'maas', zone: 'az1', systemId: 'abc123' });
  t.deepEqual(parseProviderId('maas:///abc123'), { ok: true, provider: 'maas', zone: '', systemId: 'abc123' });
  t.deepEqual(parseProviderId('maas://abc123'), { ok: true, provider: 'maas', zone: '', systemId: 'abc123' });
  t.deepEqual(parseProviderId('maas:///region/az1/abc123'), { ok: true, provider: 'maas', zone: 'az1', systemId: 'abc123' });
  // The provider is not checked when parsing, as in CAPMAAS.
  t.deepEqual(parseProviderId('aws:///us-east-1a/i-0abc'), { ok: true, provider: 'aws', zone: 'us-east-1a', systemId: 'i-0abc' });
  // Go's `.` matches "\r", and the final `[^/]` a "\n".
  t.deepEqual(parseProviderId('maas:///az1/ab\rc'), { ok: true, provider: 'maas', zone: 'az1', systemId: 'ab\rc' });
  t.deepEqual(parseProviderId('maas:///az1/abc\n'), { ok: true, provider: 'maas', zone: 'az1', systemId: 'abc\n' });
});

const FORM = '<provider>://<optional>/<segments>/<id> (for MAAS maas:///<zone>/<system_id>)';

const BAD: Array<[string, ProviderIdErrorCode, string]> = [
  ['', 'empty', 'providerID is empty'],
  ['abc123', 'no-separator', 'there is no "://" after the provider name'],
  ['maas:/az1/abc123', 'no-separator', 'there is no "://" after the provider name'],
  ['maas:az1/abc123', 'no-separator', 'there is no "://" after the provider name'],
  ['ma:as://az1/abc123', 'no-separator', 'there is no "://" after the provider name'],
  ['/az1/abc123', 'no-separator', 'there is no "://" after the provider name'],
  [':///az1/abc123', 'no-provider', 'there is no provider name before "://"'],
  ['maas://', 'no-id', 'there is nothing after "://"'],
  ['maas:///', 'trailing-slash', 'it ends with "/", so it names no id'],
  ['maas:///az1/', 'trailing-slash', 'it ends with "/", so it names no id'],
  ['maas:///az1\n/abc123', 'line-break', 'it contains a line break'],
];

for (const [value, code, why] of BAD) {
  test(`provider id - ${JSON.stringify(value)} is rejected: ${code}`, (t) => {
    const parsed = parseProviderId(value);
    if (parsed.ok) {
      t.fail(`parsed: ${JSON.stringify(parsed)}`);
      return;
    }
    t.is(parsed.error.code, code);
    t.is(parsed.error.providerId, value);
    t.is(parsed.error.name, 'ProviderIdError');
    t.is(parsed.error.message, code === 'empty' ? why : `providerID ${JSON.stringify(value)} must be of the form ${FORM}: ${why}`);
  });
}
