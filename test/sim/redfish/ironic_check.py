"""Calls the real Ironic `redfish` driver code (power, management, raid, virtual media) against the
simulated BMC, with a stand-in node and task instead of a conductor and database.
Usage: SIM_PASSWORD=... python3 ironic_check.py URL SYSTEM_PATH USERNAME
"""
import json
import os
import sys
import traceback
from unittest import mock

import sushy

from ironic.common import boot_devices
from ironic.common import components
from ironic.common import indicator_states
from ironic.common import states
from ironic.conductor import task_manager
from ironic.drivers.modules.redfish import boot as redfish_boot
from ironic.drivers.modules.redfish import management as redfish_mgmt
from ironic.drivers.modules.redfish import power as redfish_power
from ironic.drivers.modules.redfish import raid as redfish_raid
from ironic.drivers.modules.redfish import utils as redfish_utils

URL, SYSTEM, USER = sys.argv[1], sys.argv[2], sys.argv[3]


class Node:
    uuid = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'

    def __init__(self):
        self.driver_info = {'redfish_address': URL, 'redfish_system_id': SYSTEM, 'redfish_username': USER,
                            'redfish_password': os.environ['SIM_PASSWORD'], 'redfish_verify_ca': False}
        self.driver_internal_info = {}
        self.instance_info = {}
        self.properties = {}
        self.raid_config = {}
        self.target_raid_config = {}

    def set_driver_internal_info(self, key, value):
        self.driver_internal_info[key] = value

    def del_driver_internal_info(self, key, default=None):
        return self.driver_internal_info.pop(key, default)

    def save(self):
        pass


def emit(check, **fields):
    print(json.dumps({'check': check, **fields}, default=str), flush=True)


def run(check, fn):
    try:
        emit(check, **(fn() or {}))
    except Exception as exc:
        emit(check, error=f'{type(exc).__name__}: {exc}', trace=traceback.format_exc())


node = Node()
# A TaskManager look-alike holding an exclusive lock, as a conductor would hand the driver.
task = mock.MagicMock(spec=task_manager.TaskManager, node=node, shared=False, context=mock.MagicMock(),
                      driver=mock.MagicMock(management=redfish_mgmt.RedfishManagement(),
                                            power=redfish_power.RedfishPower()))


def power():
    p = task.driver.power
    seen = [p.get_power_state(task)]
    p.set_power_state(task, states.POWER_ON)
    seen.append(p.get_power_state(task))
    p.reboot(task)
    seen.append(p.get_power_state(task))
    p.set_power_state(task, states.POWER_OFF)
    seen.append(p.get_power_state(task))
    return {'seen': seen}


def management():
    m = redfish_mgmt.RedfishManagement()
    m.set_boot_device(task, boot_devices.PXE, persistent=False)
    dev = m.get_boot_device(task)
    m.set_boot_mode(task, 'uefi')
    macs = m.get_mac_addresses(task)
    return {'device': dev, 'boot_mode': m.get_boot_mode(task), 'macs': sorted(macs)}


def raid():
    disks, disk_to_storage = redfish_raid.get_physical_disks(node)
    size = min(d.capacity_bytes for d in disks[:2])
    created = redfish_raid.create_virtual_disk(task, None, [disks[0].identity, disks[1].identity], '1', size)
    redfish_raid.update_raid_config(node)
    return {'disks': [d.identity for d in disks], 'created': created.identity, 'raid_config': node.raid_config}


def virtual_media():
    system = redfish_utils.get_system(node)
    redfish_boot._insert_vmedia(task, system.managers, 'http://10.0.0.1/deploy.iso', sushy.VIRTUAL_MEDIA_CD)
    inserted = [[m.identity, m.image, m.inserted] for mgr in system.managers for m in mgr.virtual_media.get_members()]
    redfish_boot._eject_vmedia(task, system.managers, sushy.VIRTUAL_MEDIA_CD)
    ejected = [[m.identity, m.image, m.inserted] for mgr in redfish_utils.get_system(node).managers
               for m in mgr.virtual_media.get_members()]
    return {'inserted': inserted, 'ejected': ejected}


def chassis_indicator():
    # `baremetal node indicator set`: Ironic names a chassis LED by the chassis UUID and PATCHes it.
    m = redfish_mgmt.RedfishManagement()
    ids = list(m.get_supported_indicators(task, components.CHASSIS).get(components.CHASSIS, {}))
    m.set_indicator_state(task, components.CHASSIS, ids[0], indicator_states.BLINKING)
    return {'ids': ids, 'state': m.get_indicator_state(task, components.CHASSIS, ids[0])}


for name, fn in [('power', power), ('management', management), ('raid', raid), ('virtual_media', virtual_media),
                 ('chassis_indicator', chassis_indicator)]:
    run(name, fn)
