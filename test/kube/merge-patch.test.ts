import test from 'ava';
import fc from 'fast-check';
import { applyMergePatch, jsonEqual, mergePatchDiff } from '../../src/adapters/kube/merge-patch.ts';

test('merge patch - only what differs, nested objects merge, arrays are replaced whole', (t) => {
  const from = { a: 1, b: { c: 2, d: [1, 2] }, gone: 'x', same: { k: 'v' } };
  const to = { a: 1, b: { c: 3, d: [1] }, same: { k: 'v' }, added: true };
  t.deepEqual(mergePatchDiff(from, to), { b: { c: 3, d: [1] }, gone: null, added: true });
});

test('merge patch - equal values give an empty patch', (t) => {
  t.deepEqual(mergePatchDiff({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 2 }] } }), {});
});

test('merge patch - a null in the desired value counts as absent (a merge patch cannot store null)', (t) => {
  t.deepEqual(mergePatchDiff({ a: 1 }, { a: 1, b: null }), {});
  t.deepEqual(mergePatchDiff({ a: 1, b: 'x' }, { a: 1, b: null }), { b: null });
});

const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.array(tie('value'), { maxLength: 3 }), tie('object')),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 4 }),
}));

test('merge patch - applying the diff of two objects to the first gives the second', (t) => {
  const runs = 500;
  let checked = 0;
  let changed = 0;
  let removals = 0;
  fc.assert(fc.property(json.object, json.object, (from, to) => {
    const patch = mergePatchDiff(from as Record<string, unknown>, to as Record<string, unknown>);
    if (!jsonEqual(applyMergePatch(from, patch), to)) return false;
    checked += 1;
    if (Object.keys(patch).length > 0) changed += 1;
    if (Object.values(patch).includes(null)) removals += 1;
    return true;
  }), { numRuns: runs });
  t.is(checked, runs, 'every generated pair round-tripped through its diff');
  t.true(changed > 0, 'some pairs differed, so the patch was not empty');
  t.true(removals > 0, 'some patches removed a key with null');
});
