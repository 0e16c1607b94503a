// The clusterctl variable rules the release's components and templates are substituted with
// (test/support/clusterctl-vars.ts). Expected values are what clusterctl's own code (Cluster API
// simple_processor.go over drone/envsubst v2 @ 179042472c46) gives for the same input.
import test from 'ava';
import { ClusterctlVariableError, listVariables, substitute } from '../support/clusterctl-vars.ts';

test('clusterctl vars - ${VAR} takes the value; set to "" is set, not missing', (t) => {
  t.is(substitute('a ${V} b', { V: 'x' }), 'a x b');
  t.is(substitute('a ${V} b', { V: '' }), 'a  b');
});

test('clusterctl vars - a missing ${VAR} fails naming every missing variable and the file, sorted', (t) => {
  const err = t.throws(() => substitute('name: ${CLUSTER_NAME}\nns: ${NAMESPACE}\nv: ${B:=1}\n', {}, 'cluster-template.yaml'), { instanceOf: ClusterctlVariableError });
  t.deepEqual(err?.missing, ['CLUSTER_NAME', 'NAMESPACE']);
  t.is(err?.file, 'cluster-template.yaml');
  t.is(err?.message, 'cluster-template.yaml: value for variables [CLUSTER_NAME, NAMESPACE] is not set. Please set the value using os environment variables or the clusterctl config file');
});

test('clusterctl vars - ${VAR:=d}, ${VAR=d} and ${VAR:-d} take the default when VAR is unset or empty (drone, unlike a shell)', (t) => {
  for (const form of ['${V:=d}', '${V=d}', '${V:-d}']) {
    t.is(substitute(form, {}), 'd', form);
    t.is(substitute(form, { V: '' }), 'd', `${form} with V=""`);
    t.is(substitute(form, { V: 'x' }), 'x', `${form} with V=x`);
  }
  // drone treats :? and :+ as defaults too.
  t.is(substitute('${V:?msg}', {}), 'msg');
  t.is(substitute('${V:+alt}', { V: 'x' }), 'x');
});

test('clusterctl vars - ${VAR-d} is not a default form: drone stops at "-" (missing closing brace)', (t) => {
  const err = t.throws(() => substitute('image: ${IMAGE-ubuntu}', { IMAGE: 'x' }, 'cluster-template.yaml'), { instanceOf: ClusterctlVariableError });
  t.is(err?.message, 'cluster-template.yaml: missing closing brace');
});

test('clusterctl vars - an empty default is no default: ${V:=} and ${V=} are required', (t) => {
  t.deepEqual(listVariables('${V:=} ${W=} ${X:=""}').map((v) => [v.name, v.required]), [['V', true], ['W', true], ['X', false]]);
  t.throws(() => substitute('${V:=}', {}), { message: /\[V\] is not set/ });
  t.is(substitute('${X:=""}', {}), '""');
});

test('clusterctl vars - the first occurrence decides whether a variable is required', (t) => {
  t.throws(() => substitute('${V} ${V:=d}', {}), { message: /\[V\]/ });
  t.is(substitute('${V:=d} ${V}', {}), 'd ');
});

test('clusterctl vars - defaults may nest variables, which are expanded and never reported missing', (t) => {
  t.is(substitute('${V:=a${W}b}', { W: 'w' }), 'awb');
  t.is(substitute('${V:=${W}}', {}), '');
  t.is(substitute('${V:=${W:=z}}', {}), 'z');
  t.deepEqual(listVariables('${V:=a${W}b}'), [{ name: 'V', required: false, defaultValue: 'a${W}b' }]);
});

test('clusterctl vars - escapes and text: $$ is $ in text but not in a default; $VAR and \\${V} as drone reads them', (t) => {
  t.is(substitute('$${V}', { V: 'x' }), '${V}');
  t.is(substitute('a$$b $$$', {}), 'a$b $$');
  t.is(substitute('${V:=a$$b}', {}), 'a$$b');
  t.is(substitute('a$b $V', {}), 'a$b $V');
  t.is(substitute('\\${V}', { V: 'x' }), '\\x');
  // A default ends at the first "}".
  t.is(substitute('${V:=a}b}', {}), 'ab}');
  t.is(substitute('${V:=a:b/c d}', {}), 'a:b/c d');
});

test('clusterctl vars - legacy spaces ${ VAR }, ${ VAR} and ${VAR } are read as ${VAR}', (t) => {
  t.is(substitute('${ V } ${ V} ${V }', { V: 'x' }), 'x x x');
  t.throws(() => substitute('${ W }', {}), { message: /\[W\]/ });
});

test('clusterctl vars - malformed references fail with drone\'s message and the file', (t) => {
  t.throws(() => substitute('${V', {}, 'f.yaml'), { message: 'f.yaml: missing closing brace' });
  t.throws(() => substitute('${}', {}, 'f.yaml'), { message: 'f.yaml: unable to parse variable name' });
  t.throws(() => substitute('${V.x}', {}, 'f.yaml'), { message: 'f.yaml: missing closing brace' });
  t.throws(() => substitute('a${V:=b', {}, 'f.yaml'), { message: 'f.yaml: unable to parse substitution within function' });
  // drone's string functions: refused by name rather than half-done.
  t.throws(() => substitute('${V,,}', { V: 'AB' }), { message: /case function is not supported/ });
  t.throws(() => substitute('${V:1}', { V: 'abc' }), { message: /substring function is not supported/ });
});

test('clusterctl vars - listVariables reports name, required and default, sorted by name', (t) => {
  t.deepEqual(listVariables('${B:=2} ${A} ${C:-x y}'), [
    { name: 'A', required: true, defaultValue: '' },
    { name: 'B', required: false, defaultValue: '2' },
    { name: 'C', required: false, defaultValue: 'x y' },
  ]);
});
