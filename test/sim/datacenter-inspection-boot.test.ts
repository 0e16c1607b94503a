// A network boot Ironic prepared for agent inspection (22.1+) carries ipa-inspection-callback-url
// in the kernel parameters: the firmware hands it to the agent it starts; a deploy boot has none.
import test from 'ava';
import { firmwareBoot } from '../../src/sim/datacenter/firmware.ts';
import { ipxeConfigPath } from '../../src/sim/datacenter/ipxe-config.ts';

const MAC = '52:54:00:bb:00:01';
const BOOT = 'http://127.0.0.1:1/boot';
const script = (extra: string): string => `#!ipxe
goto deploy
:deploy
kernel --timeout 60000 http://127.0.0.1:1/boot/k ipa-api-url=http://127.0.0.1:6385 BOOTIF=${MAC} ${extra} || goto retry
initrd --timeout 60000 http://127.0.0.1:1/boot/i || goto retry
boot
:retry
`;

async function boot(extra: string): Promise<Awaited<ReturnType<typeof firmwareBoot>>> {
  const files = new Map<string, Buffer>([[`${BOOT}/${ipxeConfigPath(MAC)}`, Buffer.from(script(extra))], ['http://127.0.0.1:1/boot/k', Buffer.from('k')], ['http://127.0.0.1:1/boot/i', Buffer.from('i')]]);
  return firmwareBoot({ target: 'Pxe', mode: 'UEFI', virtualMedia: { image: null, inserted: false } }, {
    macs: [MAC], bootUrl: BOOT, ironicUrl: 'http://127.0.0.1:6385', deployIsoUrls: [], diskBootable: () => false,
    fetch: async (url) => files.get(url) ?? null,
  });
}

test('an inspection boot passes the callback URL to the agent', async (t) => {
  const outcome = await boot('ipa-inspection-callback-url=http://127.0.0.1:6385/v1/continue_inspection');
  t.is(outcome.kind, 'ramdisk');
  t.is(outcome.kind === 'ramdisk' ? outcome.inspectionCallbackUrl : null, 'http://127.0.0.1:6385/v1/continue_inspection');
});

test('a deploy boot has no callback URL: the agent looks itself up', async (t) => {
  const outcome = await boot('');
  t.is(outcome.kind, 'ramdisk');
  t.is(outcome.kind === 'ramdisk' ? outcome.inspectionCallbackUrl : null, undefined);
});
