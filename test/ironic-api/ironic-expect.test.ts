import test from 'ava';
import { apiVersion } from '../../src/adapters/ironic/client/version.ts';
import { comparedVersion, expectationsOf, inspectedMemoryMb } from '../support/ironic-expect.ts';

// The one place the tests decide what differs between Debian 12's Ironic 21.4 (1.82) and Debian
// 13's 29.0 (1.96): each answer at both, and at the releases between where they change.
const at = (minor: number, serverMinor = minor) => expectationsOf({ version: apiVersion(1, minor), serverMax: apiVersion(1, serverMinor) });

test('ironic expect - 21.4 (1.82) serves none of firmware, servicing or a stored redfish inventory', (t) => {
  t.like(at(82), { version: '1.82', firmwareComponents: false, firmwareUpdate: false, servicing: false, firmwareServiceStep: false, fakeFirmwareInterface: false, fakeFirmwareComponents: undefined, fakeBiosServiceStep: false, redfishInspectionStoresInventory: false });
  t.is(inspectedMemoryMb(at(82), 48), '49152');
});

test('ironic expect - 29.0 (1.96) serves them all, but fake-hardware\'s BIOS still has no service step', (t) => {
  t.like(at(96), { version: '1.96', firmwareComponents: true, firmwareUpdate: true, servicing: true, firmwareServiceStep: true, fakeFirmwareInterface: true, fakeBiosServiceStep: false, redfishInspectionStoresInventory: true });
  t.deepEqual(at(96).fakeFirmwareComponents, []);
  t.is(inspectedMemoryMb(at(96), 48), 49152);
});

test('ironic expect - between: 22.1 (1.86) has the firmware API but runs no-firmware; 23.0 (1.87) services; 26.1 (1.93) services firmware', (t) => {
  t.like(at(86), { firmwareComponents: true, fakeFirmwareInterface: false, servicing: false, redfishInspectionStoresInventory: true });
  t.like(at(87), { fakeFirmwareInterface: true, servicing: true, firmwareServiceStep: false });
  t.like(at(93), { firmwareServiceStep: true });
  // A client held at 1.82 by maxVersion on a 29.0 server: the API answers follow the negotiated version, what the server's release does follows its maximum.
  t.like(at(82, 96), { firmwareComponents: false, servicing: false, fakeFirmwareInterface: true, redfishInspectionStoresInventory: true });
});

test('ironic expect - the API test server is compared at what the real Ironic serves, capped at the 1.96 it models', (t) => {
  t.is(comparedVersion(apiVersion(1, 82)), '1.82');
  t.is(comparedVersion(apiVersion(1, 96)), '1.96');
  t.is(comparedVersion(apiVersion(1, 104)), '1.96');
});
