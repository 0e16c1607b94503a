// sharedText: a text comes back unchanged, however the table of kept texts is filled or restarted.
import test from 'ava';
import { sharedText } from '../../src/actors/host/shared-text.ts';

// Two equal strings that are separate objects (concatenated at run time).
function built(a: string, b: string): string {
  return [a, b].join('');
}

test('equal texts built apart come back equal', (t) => {
  const first = sharedText(built('registering -> ', 'inspecting: registered'));
  const second = sharedText(built('registering -> inspecting', ': registered'));
  t.is(second, first);
  t.is(second, 'registering -> inspecting: registered');
});

test('a text is never changed, whatever was handed out before', (t) => {
  for (let i = 0; i < 10_000; i++) t.is(sharedText(`host-${i} failed`), `host-${i} failed`);
  // Past the bound the table starts again: a common text still comes back equal.
  t.is(sharedText(built('none -> ', 'registering: new host')), 'none -> registering: new host');
});
