// The image check (--image-check) quotes the image URL in the host's error message, with the
// image server's userinfo hidden. A password may hold an "@" (URL parsers take the last one), and
// none of it may reach the message.
import test from 'ava';
import { imageUnreachable } from '../../src/adapters/ironic/provisioner/image-check.ts';

test('image check - an unreachable image is named without any part of its URL password', async (t) => {
  for (const url of ['http://user:img-Kd4-secret@127.0.0.1:1/os.qcow2', 'http://user:at@img-Kd4-secret@127.0.0.1:1/os.qcow2']) {
    const problem = await imageUnreachable(url, 2_000);
    t.truthy(problem, `${url} is reported`);
    t.regex(problem ?? '', /^image http:\/\/xxxxx@127\.0\.0\.1:1\/os\.qcow2 is unreachable/);
    t.false((problem ?? '').includes('img-Kd4-secret'), problem ?? '');
  }
});
