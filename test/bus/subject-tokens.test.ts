// A node name, audit action or introspection verb is one token of a NATS subject. One holding
// '.', '*', '>' or whitespace would route elsewhere (a node named '>' would hear every node's
// capacity notices) or break the protocol line: refused with a typed error that names it.
import test from 'ava';
import { subjects } from '../../src/bus/subjects.ts';
import { subjectMatches } from '../../src/bus/subject-match.ts';
import { BusError } from '../../src/ports/index.ts';

const BAD_TOKENS = ['a.b', '*', '>', 'a b', 'tab\there', '', 'x>', 'new\nline'];

test('subjects - a node name that is not one plain token is refused, not routed', (t) => {
  const subs = subjects();
  for (const node of BAD_TOKENS) {
    // introspect('*') is the one wildcard asked for on purpose (every node): tested below.
    const builders = [() => subs.capacityNotify(node), () => subs.introspectVerb(node, 'inspect'), ...(node === '*' ? [] : [() => subs.introspect(node)])];
    for (const build of builders) {
      const error = t.throws(build, { instanceOf: BusError }, `node ${JSON.stringify(node)}`);
      t.false(error?.retryable, 'trying again cannot help');
      t.true(error?.message.includes(JSON.stringify(node)), `names the value: ${error?.message}`);
      t.regex(error?.message ?? '', /node/);
    }
  }
});

test('subjects - introspect("*") still asks every node, and plain names build plain subjects', (t) => {
  const subs = subjects();
  t.is(subs.introspect('*'), 'mf.introspect.*');
  t.is(subs.capacityNotify('node-1_a'), 'mf.capacity.notify.node-1_a');
  t.is(subs.introspectVerb('n1', 'inspect'), 'mf.introspect.n1.inspect');
  t.true(subjectMatches(subs.introspect('*'), subs.introspect('n1')));
});

test('subjects - an audit action or verb with a wildcard or dot is refused', (t) => {
  const subs = subjects();
  for (const action of ['>', 'a.b', 'a b']) {
    t.throws(() => subs.audit(action), { instanceOf: BusError });
    t.throws(() => subs.refusal(action), { instanceOf: BusError });
    t.throws(() => subs.introspectVerb('n1', action), { instanceOf: BusError });
  }
});

test('subjects - a cluster name with a wildcard, space or empty token is refused; dots are fine', (t) => {
  for (const cluster of ['*', 'a.>', 'my cluster', 'a..b', '', '.mf']) {
    t.throws(() => subjects(cluster), { instanceOf: BusError }, JSON.stringify(cluster));
  }
  t.is(subjects('prod.eu').command(3), 'prod.eu.cmd.3');
  t.is(subjects('prod.eu').commandShard('prod.eu.cmd.3'), 3);
});
