import test from 'ava';
import { NS, WIDGETS, meta, raw, widget, widgetsPath, withApi } from './helpers.ts';
import type { Api } from './helpers.ts';

async function seed(api: Api): Promise<void> {
  const labelled = (name: string, labels: Record<string, string>, color = 'red') =>
    api.server.create(widget(name, { size: 1, color }, { metadata: { name, namespace: NS, labels } }));
  labelled('a', { env: 'prod', tier: 'web', rank: '3' });
  labelled('b', { env: 'dev', tier: 'db', rank: '10' }, 'blue');
  labelled('c', { env: 'prod', rank: 'x' });
  labelled('d', {}, 'green');
}

async function names(api: Api, labelSelector?: string, fieldSelector?: string): Promise<string[]> {
  const list = await api.custom.listNamespacedCustomObject({ ...WIDGETS, namespace: NS, labelSelector, fieldSelector }) as { items: unknown[] };
  return list.items.map((i) => String(meta(i).name));
}

test('selectors - every label operator, with != and notin matching objects without the key', async (t) => {
  const api = await withApi(t);
  await seed(api);
  const cases: [string, string[]][] = [
    ['env=prod', ['a', 'c']],
    ['env==prod', ['a', 'c']],
    ['env!=prod', ['b', 'd']],
    ['tier in (web,db)', ['a', 'b']],
    ['tier notin (web)', ['b', 'c', 'd']],
    ['tier', ['a', 'b']],
    ['!tier', ['c', 'd']],
    ['rank>5', ['b']],
    ['rank<5', ['a']],
    ['env=prod,tier', ['a']],
    ['env in (prod), !tier', ['c']],
    ['', ['a', 'b', 'c', 'd']],
    ['tier in ()', []],
  ];
  for (const [selector, expected] of cases) t.deepEqual(await names(api, selector), expected, selector);
});

test('selectors - a label selector that does not parse is a 400 with the parser text', async (t) => {
  const api = await withApi(t);
  const cases: [string, string][] = [
    ['env in prod', "unable to parse requirement: found 'prod' expected: '('"],
    ['env prod', "unable to parse requirement: found 'prod', expected: in, notin, =, ==, !=, gt, lt"],
    ['rank>x', "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['env=a b', "found 'b', expected: ',' or 'end of string'"],
    ['env=prod,', "found '', expected: identifier after ','"],
    ['env=a_', "unable to parse requirement: values[0][env]: Invalid value: \"a_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
    ['-env', "unable to parse requirement: : Invalid value: \"-env\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
  ];
  for (const [selector, message] of cases) {
    const r = await raw(api.server, 'GET', `${widgetsPath}?labelSelector=${encodeURIComponent(selector)}`);
    t.deepEqual([r.status, r.json().reason, r.json().message], [400, 'BadRequest', message], selector);
  }
});

test('selectors - field selectors on name, namespace and selectableFields; others are refused', async (t) => {
  const api = await withApi(t);
  await seed(api);
  api.server.create({ ...widget('a'), metadata: { name: 'a', namespace: 'ns2' } });
  t.deepEqual(await names(api, undefined, 'metadata.name=b'), ['b']);
  t.deepEqual(await names(api, undefined, 'metadata.name!=b'), ['a', 'c', 'd']);
  t.deepEqual(await names(api, undefined, 'spec.color=red'), ['a', 'c']);
  t.deepEqual(await names(api, 'env=prod', 'spec.color==red,metadata.name!=c'), ['a']);
  const all = await api.custom.listClusterCustomObject({ ...WIDGETS, fieldSelector: 'metadata.namespace=ns2' }) as { items: unknown[] };
  t.deepEqual(all.items.map((i) => meta(i).namespace), ['ns2']);
  const bad = await raw(api.server, 'GET', `${widgetsPath}?fieldSelector=spec.size%3D1`);
  t.deepEqual([bad.status, bad.json().message], [400, 'field label not supported: spec.size']);
  const syntax = await raw(api.server, 'GET', `${widgetsPath}?fieldSelector=metadata.name`);
  t.deepEqual([syntax.status, syntax.json().message], [400, "invalid selector: 'metadata.name'; can't understand 'metadata.name'"]);

  await api.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'YQ==', 'tls.key': 'YQ==' } } });
  await api.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'plain' } } });
  const secrets = await api.core.listNamespacedSecret({ namespace: NS, fieldSelector: 'type=kubernetes.io/tls' });
  t.deepEqual(secrets.items.map((s) => s.metadata?.name), ['tls']);
});
