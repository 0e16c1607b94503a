import test from 'ava';
import { imageFlag } from '../../src/cli/sim-maas/flags.ts';

test('sim maas --image - names a custom image, with an architecture after @; repeating adds', (t) => {
  const one = imageFlag('custom/u-2204-k8s', undefined);
  t.deepEqual(one, [{ name: 'custom/u-2204-k8s' }]);
  t.deepEqual(imageFlag('rocky-9@arm64/generic', one), [{ name: 'custom/u-2204-k8s' }, { name: 'rocky-9', architecture: 'arm64/generic' }]);
});

test('sim maas --image - a name MAAS would not take, or an architecture that is not arch/subarch, exits 2 naming the flag', (t) => {
  for (const bad of ['bad name', '/x', 'a/b/c', 'img@amd64', '']) {
    const err = t.throws(() => imageFlag(bad, undefined));
    t.regex(String(err?.message), /^--image: expected a custom image name/, bad);
    t.is((err as { exitCode?: number } | undefined)?.exitCode, 2, bad);
  }
});
