import test from 'ava';
import fc from 'fast-check';
import { dnsNameFor, planDns } from '../../src/machines/maas-cluster/index.ts';

const m = (key: string, ip: string, running: boolean, deleting = false) => ({ key, ips: [ip], running, deleting });

test('maas dns - running control-plane machines are attached, others detached', (t) => {
  const p = planDns(['10.0.0.1', '10.0.0.9'], [m('a', '10.0.0.1', true), m('b', '10.0.0.2', true), m('c', '10.0.0.9', false)]);
  t.deepEqual(p.ips, ['10.0.0.1', '10.0.0.2']);
  t.deepEqual(p.attached, ['10.0.0.2']);
  t.deepEqual(p.detached, ['10.0.0.9']);
  t.true(p.changed);
});

test('maas dns - every machine briefly off does not wipe the record (CAPMAAS PR #339)', (t) => {
  const p = planDns(['10.0.0.1', '10.0.0.2'], [m('a', '10.0.0.1', false), m('b', '10.0.0.2', false)]);
  t.deepEqual(p.ips, ['10.0.0.1', '10.0.0.2']);
  t.false(p.changed);
});

test('maas dns - a deleted machine leaves the record even when nothing else runs', (t) => {
  const p = planDns(['10.0.0.1', '10.0.0.2'], [m('a', '10.0.0.1', false, true), m('b', '10.0.0.2', false)]);
  t.deepEqual(p.ips, ['10.0.0.2']);
  t.deepEqual(planDns(['10.0.0.1'], []).ips, []);
});

test('maas dns - the name rule: endpoint host, then status, then cluster-suffix.domain', (t) => {
  t.is(dnsNameFor({ endpointHost: 'api.lab', cluster: 'c1', dnsDomain: 'maas', suffix: 'abcdef' }), 'api.lab');
  t.is(dnsNameFor({ statusName: 'c1-123456.maas', cluster: 'c1', dnsDomain: 'maas', suffix: 'abcdef' }), 'c1-123456.maas');
  t.is(dnsNameFor({ cluster: 'c1', dnsDomain: 'maas', suffix: '3f9a2b99' }), 'c1-3f9a2b.maas');
});

test('maas dns property - the record holds exactly the running members when any runs, and never gains a non-running one', (t) => {
  const member = fc.record({ n: fc.integer({ min: 1, max: 20 }), running: fc.boolean(), deleting: fc.boolean() });
  const runs = 500;
  let checked = 0;
  let exact = 0;
  let attachments = 0;
  fc.assert(fc.property(fc.array(member, { maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 20 }), { maxLength: 5 }), (ms, cur) => {
    const members = ms.map((x, i) => ({ key: `k${i}`, ips: [`10.0.0.${x.n}`], running: x.running, deleting: x.deleting }));
    const current = [...new Set(cur.map((n) => `10.0.0.${n}`))];
    const p = planDns(current, members);
    const running = new Set(members.filter((x) => x.running && !x.deleting).map((x) => x.ips[0]));
    if (running.size > 0 && (p.ips.length !== running.size || !p.ips.every((ip) => running.has(ip)))) throw new Error('not exactly the running members');
    for (const ip of p.attached) if (!running.has(ip)) throw new Error(`attached non-running ${ip}`);
    const deleted = new Set(members.filter((x) => x.deleting).map((x) => x.ips[0]));
    const kept = new Set(members.filter((x) => !x.deleting).flatMap((x) => x.ips));
    for (const ip of p.ips) if (deleted.has(ip) && !kept.has(ip)) throw new Error(`kept deleted ${ip}`);
    checked += 1;
    if (running.size > 0) exact += 1;
    attachments += p.attached.length;
  }), { numRuns: runs });
  t.is(checked, runs, 'every generated fleet was planned and checked');
  t.true(exact > 0, 'some fleets had running members, so the exact-record check ran');
  t.true(attachments > 0, 'some plans attached running members, each checked to be running');
});
