// JSON annotations are refused, with a reason, when they nest too deep or run too long, before
// any recursive reader sees them (issue 19.6: 5,000 nested arrays overflowed the stack of the
// CLI, the webhook and the host actor).
import test from 'ava';
import {
  MAX_ANNOTATION_JSON_BYTES, MAX_ANNOTATION_JSON_DEPTH, STATUS_ANNOTATION, parseStatusAnnotation, validateBareMetalHost,
} from '../../src/api/index.ts';
import { bmh } from '../support/node.ts';

const nested = (depth: number): string => `{"errorMessage":"x","hardware":{"nics":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

test('annotation limits - 5,000 levels of nesting are refused with the reason, not a stack overflow', (t) => {
  const r = parseStatusAnnotation(nested(5_000));
  t.false(r.ok);
  if (!r.ok) t.regex(r.error.reason, new RegExp(`nests deeper than ${MAX_ANNOTATION_JSON_DEPTH} levels`));
});

test('annotation limits - brackets inside strings do not count, and a status within the limits still parses', (t) => {
  const r = parseStatusAnnotation(JSON.stringify({ errorMessage: '['.repeat(1_000), operationalStatus: 'OK' }));
  t.true(r.ok, r.ok ? '' : r.error.reason);
});

test('annotation limits - a value over the byte limit is refused, naming the limit', (t) => {
  const r = parseStatusAnnotation(JSON.stringify({ errorMessage: 'x'.repeat(MAX_ANNOTATION_JSON_BYTES) }));
  t.false(r.ok);
  if (!r.ok) t.regex(r.error.reason, new RegExp(`at most ${MAX_ANNOTATION_JSON_BYTES} are accepted`));
});

test('annotation limits - validation of a host carrying the deep annotation reports it as a field error', (t) => {
  const host = bmh('deep', { annotations: { [STATUS_ANNOTATION]: nested(5_000) } });
  const errors = validateBareMetalHost(host);
  t.true(errors.some((e) => e.path === `metadata.annotations[${STATUS_ANNOTATION}]` && /nests deeper/.test(e.reason)), JSON.stringify(errors));
});
