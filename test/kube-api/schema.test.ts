import test from 'ava';
import { GROUP, NS, VERSION, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';

const invalidMessage = (e: string): string => `Widget.test.metalfleet.io "a" is invalid: ${e}`;

test('schema - each rule fails with the API server message', async (t) => {
  const { server } = await withApi(t);
  const cases: [Record<string, unknown>, string][] = [
    [{}, 'spec.size: Required value'],
    [{ size: '3' }, 'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"'],
    [{ size: 1.5 }, 'spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"'],
    [{ size: 0 }, 'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1'],
    [{ size: 11 }, 'spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10'],
    [{ size: 1, ratio: 1 }, 'spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1'],
    [{ size: 1, color: 'pink' }, 'spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"'],
    [{ size: 1, cron: 'a b' }, "spec.cron: Invalid value: \"a b\": spec.cron in body should match '^[0-9*]+ [0-9*]+$'"],
    [{ size: 1, name: '' }, 'spec.name: Invalid value: "": spec.name in body should be at least 1 chars long'],
    [{ size: 1, name: 'abcdefghi' }, 'spec.name: Too long: may not be more than 8 bytes'],
    [{ size: 1, port: true }, 'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
    [{ size: 1, online: 'yes' }, 'spec.online: Invalid value: "string": spec.online in body must be of type boolean: "string"'],
    [{ size: 1, tags: ['a', 'b', 'c', 'd'] }, 'spec.tags: Too many: 4: must have at most 3 items'],
    [{ size: 1, tags: [1] }, 'spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"'],
    [{ size: 1, labels: { a: 1 } }, 'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'],
    [{ size: 1, image: { url: 'not a uri' } }, 'spec.image.url: Invalid value: "not a uri": spec.image.url in body must be of type uri: "not a uri"'],
    [{ size: 1, extra: { known: 'x', free: 'kept' } }, 'spec.extra.known: Invalid value: "string": spec.extra.known in body must be of type integer: "string"'],
  ];
  for (const [spec, message] of cases) {
    const r = await raw(server, 'POST', widgetsPath, widget('a', spec));
    t.deepEqual([r.status, r.json().reason, r.json().message], [422, 'Invalid', invalidMessage(message)], JSON.stringify(spec));
  }
  for (const port of [80, 'http']) t.is((await raw(server, 'POST', widgetsPath, widget(`p${port}`, { size: 1, port }))).status, 201);
});

test('schema - several errors print as [a, b] with one cause each', async (t) => {
  const { server } = await withApi(t);
  const r = await raw(server, 'POST', widgetsPath, widget('a', { color: 'pink', online: 'y' }));
  t.deepEqual(r.json(), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: invalidMessage('[spec.size: Required value, spec.color: Unsupported value: "pink": supported values: "red", "green", "blue", spec.online: Invalid value: "string": spec.online in body must be of type boolean: "string"]'),
    reason: 'Invalid',
    details: {
      name: 'a', group: GROUP, kind: 'Widget', causes: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' },
        { reason: 'FieldValueNotSupported', message: 'Unsupported value: "pink": supported values: "red", "green", "blue"', field: 'spec.color' },
        { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.online in body must be of type boolean: "string"', field: 'spec.online' },
      ],
    },
    code: 422,
  });
});

test('schema - kind, apiVersion and metadata are checked before the schema', async (t) => {
  const { server } = await withApi(t);
  const kind = await raw(server, 'POST', widgetsPath, { ...widget('a', {}), kind: 'Gizmo', apiVersion: `${GROUP}/v9` });
  t.is(kind.json().message, invalidMessage(`[kind: Invalid value: "Gizmo": must be Widget, apiVersion: Invalid value: "${GROUP}/v9": must be ${GROUP}/${VERSION}]`));
  const noKind = await raw(server, 'POST', widgetsPath, { apiVersion: `${GROUP}/${VERSION}`, metadata: { name: 'a' } });
  t.deepEqual([noKind.status, noKind.json().message], [400,
    `the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in '{"apiVersion":"${GROUP}/${VERSION}","metadata":{"name":"a"}}' ({"apiVersion":"test.metalfleet ...)`]);
  const name = await raw(server, 'POST', widgetsPath, widget('Bad_Name'));
  t.is(name.json().message, `Widget.test.metalfleet.io "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`);
  const label = await raw(server, 'POST', widgetsPath, widget('a', { size: 1 }, { metadata: { name: 'a', labels: { ok: 'bad value' }, finalizers: ['a/b/c'] } }));
  t.is(label.json().message, invalidMessage("[metadata.labels: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), metadata.finalizers: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')]"));
});

test('schema - unknown fields are pruned with a warning, a 400 under Strict, silently under Ignore', async (t) => {
  const { server } = await withApi(t);
  const body = { ...widget('a', { size: 1, bogus: 1, extra: { free: { deep: true }, known: 2 }, tags: ['x'] }), junk: true, metadata: { name: 'a', junk: 'x' } };
  const warned = await raw(server, 'POST', widgetsPath, body);
  t.is(warned.status, 201);
  t.deepEqual(warned.headers.get('warning')?.split(', ').sort(), [
    '299 - "unknown field \\"junk\\""', '299 - "unknown field \\"metadata.junk\\""', '299 - "unknown field \\"spec.bogus\\""',
  ]);
  const stored = warned.json();
  t.false('junk' in stored);
  t.false('junk' in meta(stored));
  t.deepEqual((stored.spec as Record<string, unknown>).extra, { free: { deep: true }, known: 2 }, 'preserve-unknown-fields keeps what it does not declare');

  const strict = await raw(server, 'POST', `${widgetsPath}?fieldValidation=Strict`, widget('b', { size: 1, bogus: 1 }));
  t.deepEqual([strict.status, strict.json().message], [400, 'Widget in version "v1alpha1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"']);
  const ignored = await raw(server, 'POST', `${widgetsPath}?fieldValidation=Ignore`, widget('c', { size: 1, bogus: 1 }));
  t.deepEqual([ignored.status, ignored.headers.get('warning')], [201, null]);
});

test('schema - defaults fill missing fields and non-nullable nulls; nullable nulls stay; other nulls are pruned', async (t) => {
  const { server } = await withApi(t);
  const a = server.create(widget('a', { size: 1 }));
  t.deepEqual(a.spec, { size: 1, color: 'red', image: { checksumType: 'sha256' } }, 'a default {} gets its own defaults');
  const b = server.create(widget('b', { size: 1, color: null, note: null, name: null, image: { url: 'https://example.com/i.img' } }));
  t.deepEqual(b.spec, { size: 1, color: 'red', note: null, image: { url: 'https://example.com/i.img', checksumType: 'sha256' } });
  const c = server.create(widget('c', { size: 1, color: 'blue', image: { checksumType: 'md5' } }));
  t.deepEqual(c.spec, { size: 1, color: 'blue', image: { checksumType: 'md5' } });
  t.is(meta(c).namespace, NS);
});
