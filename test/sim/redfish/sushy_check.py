"""Drives the simulated Redfish BMC with the real python3-sushy, the library Ironic's `redfish`
hardware type uses. Prints one JSON line per check; test/sim/redfish-sushy.test.ts judges them.
Usage: SIM_PASSWORD=... python3 sushy_check.py URL SYSTEM_PATH USERNAME
"""
import os
import sys
import time

import sushy
from sushy import auth
from sushy import taskmonitor
from checks import emit, run

URL, SYSTEM, USER = sys.argv[1], sys.argv[2], sys.argv[3]
PASSWORD = os.environ['SIM_PASSWORD']


def connect(kind):
    if kind == 'basic':
        return sushy.Sushy(URL, auth=auth.BasicAuth(username=USER, password=PASSWORD))
    if kind == 'session':
        return sushy.Sushy(URL, auth=auth.SessionAuth(username=USER, password=PASSWORD))
    return sushy.Sushy(URL, username=USER, password=PASSWORD)


def basic():
    s = connect('basic')
    system = s.get_system(SYSTEM)
    return {'identity': system.identity, 'power': str(system.power_state.value), 'uuid': system.uuid}


def session():
    a = auth.SessionAuth(username=USER, password=PASSWORD)
    s = sushy.Sushy(URL, auth=a)
    system = s.get_system(SYSTEM)
    key, uri = a.get_session_key(), a.get_session_resource_id()
    default_system = s.get_system().identity  # the account sees exactly one system
    a.close()
    return {'identity': system.identity, 'has_key': bool(key), 'session_uri': uri, 'default_system': default_system}


def session_or_basic():
    return {'identity': connect('default').get_system(SYSTEM).identity}


def power():
    system = connect('session').get_system(SYSTEM)
    allowed = sorted(v.value for v in system.get_allowed_reset_system_values())
    seen = []
    for name in ['On', 'ForceOff', 'ForceOn', 'GracefulRestart', 'ForceRestart', 'Nmi', 'PushPowerButton',
                 'PowerCycle', 'GracefulShutdown', 'On']:
        kind = sushy.ResetType(name)
        system.reset_system(kind)
        system.refresh()
        seen.append([kind.value, system.power_state.value])
    return {'allowed': allowed, 'seen': seen}


def boot():
    system = connect('session').get_system(SYSTEM)
    allowed = sorted(v.value for v in system.get_allowed_system_boot_source_values())
    system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_PXE, enabled=sushy.BOOT_SOURCE_ENABLED_ONCE,
                                   mode=sushy.BOOT_SOURCE_MODE_UEFI)
    system.refresh()
    once = [system.boot.target.value, system.boot.enabled.value, system.boot.mode.value]
    system.set_system_boot_source(sushy.BOOT_SOURCE_TARGET_HDD, enabled=sushy.BOOT_SOURCE_ENABLED_CONTINUOUS)
    system.refresh()
    continuous = [system.boot.target.value, system.boot.enabled.value, system.boot.mode.value]
    return {'allowed': allowed, 'once': once, 'continuous': continuous}


def bios():
    system = connect('session').get_system(SYSTEM)
    if system.power_state != sushy.POWER_STATE_ON:
        system.reset_system(sushy.RESET_ON)
    b = system.bios
    before = b.attributes['ProcVirtualization']
    b.set_attributes({'ProcVirtualization': 'Disabled', 'BootDelaySeconds': 5})
    b.refresh()
    pending = dict(b.pending_attributes)
    still = b.attributes['ProcVirtualization']
    system.reset_system(sushy.RESET_FORCE_RESTART)
    b.refresh()
    b.change_password('new-secret', '', 'AdminPassword')
    b.reset_bios()
    return {'before': before, 'pending': pending, 'before_reset': still,
            'after_reset': b.attributes['ProcVirtualization'], 'delay': b.attributes['BootDelaySeconds'],
            'pending_after': dict(b.pending_attributes)}


def bios_unknown():
    b = connect('session').get_system(SYSTEM).bios
    try:
        b.set_attributes({'NoSuchAttribute': 'x'})
    except sushy.exceptions.BadRequestError as exc:
        return {'status': exc.status_code, 'code': exc.code}
    return {'status': 'accepted'}


def bios_registry():
    b = connect('session').get_system(SYSTEM).bios
    reg = b.get_attribute_registry()
    fields = ('attribute_type', 'allowable_values', 'lower_bound', 'upper_bound', 'min_length', 'max_length',
              'read_only', 'reset_required', 'unique', 'default_value')
    attributes = {a.name: {f: getattr(a, f) for f in fields} for a in reg.registry_entries.attributes}
    try:
        b.set_attributes({'BootDelaySeconds': '5'})
        refused = None
    except sushy.exceptions.BadRequestError as exc:
        refused = {'status': exc.status_code, 'message': str(exc)}
    return {'named': b._attribute_registry, 'identity': reg.identity, 'language': reg.language,
            'version': reg.registry_version, 'attributes': attributes, 'refused': refused}


def bios_apply_time():
    b = connect('session').get_system(SYSTEM).bios
    b.set_attributes({'NumLock': 'Off'}, apply_time=sushy.APPLY_TIME_ON_RESET)
    b.refresh()
    settings = b.apply_time_settings
    try:
        # Bios.@Redfish.Settings offers OnReset only: a BMC refuses an apply time it does not offer.
        b.set_attributes({'LogicalProc': 'Disabled'}, apply_time=sushy.APPLY_TIME_IMMEDIATE)
        immediate = {'status': 'accepted'}
    except sushy.exceptions.BadRequestError as exc:
        immediate = {'status': exc.status_code, 'message': str(exc)}
    b.refresh()
    return {'supported': [v.value for v in b.supported_apply_times],
            'apply_time': settings.apply_time if settings else None,
            'allowed': settings.apply_time_allowable_values if settings else None,
            'immediate': immediate, 'pending': dict(b.pending_attributes)}


def virtual_media():
    system = connect('session').get_system(SYSTEM)
    manager = system.managers[0]
    media = {m.identity: m for m in manager.virtual_media.get_members()}
    cd = media['Cd']
    cd.insert_media('http://images.example/deploy.iso')
    cd.refresh()
    inserted = [cd.image, cd.inserted, cd.write_protected]
    cd.eject_media()
    cd.refresh()
    return {'members': sorted(media), 'types': sorted(t.value for t in cd.media_types),
            'inserted': inserted, 'ejected': [cd.image, cd.inserted]}


def volumes():
    system = connect('session').get_system(SYSTEM)
    storage = system.storage.get_members()[0]
    drives = storage.drives
    coll = storage.volumes
    support = [v.value for v in coll.operation_apply_time_support.mapped_supported_values]
    size = min(d.capacity_bytes for d in drives[:2])
    payload = {'RAIDType': 'RAID1', 'CapacityBytes': size,
               'Links': {'Drives': [{'@odata.id': d._path} for d in drives[:2]]}}
    vol = coll.create(payload, apply_time=sushy.APPLY_TIME_IMMEDIATE)
    created = [vol.identity, vol.raid_type.value, vol.capacity_bytes]
    coll.refresh()
    count = len(coll.get_members())
    vol.delete(apply_time=sushy.APPLY_TIME_IMMEDIATE)
    # A fresh collection: refreshing the old one re-reads its cached (now deleted) members.
    left = connect('session').get_system(SYSTEM).storage.get_members()[0].volumes.get_members()
    return {'drives': len(drives), 'raid_types': sorted(t.value for t in storage.storage_controllers[0].raid_types),
            'apply_times': support, 'created': created, 'count_after_create': count,
            'count_after_delete': len(left)}


def update():
    s = connect('session')
    us = s.get_update_service()
    inv = {i.identity: i.version for i in us.firmware_inventory.get_members()}
    monitor = us.simple_update('http://images.example/bios-2.11.bin')
    uri = monitor.task_monitor_uri
    monitor.wait(30)
    # Not s.get_task_monitor(uri): it loads sushy's packaged standard registries, which Debian's
    # python3-sushy 4.3.3 does not ship (FileNotFoundError); UpdateService.get_task_monitor passes
    # an argument TaskMonitor no longer takes. So the monitor the way sushy builds it, minus those.
    task = taskmonitor.TaskMonitor(s._conn, uri).get_task()
    after = {i.identity: i.version for i in s.get_update_service().firmware_inventory.get_members()}
    tasks = len(s.get_task_service().tasks.get_members())
    return {'before': inv, 'after': after, 'task_state': task.task_state.value, 'percent': task.percent_complete,
            'tasks': tasks}


def update_protocol():
    us = connect('session').get_update_service()
    before = {i.identity: i.version for i in us.firmware_inventory.get_members()}
    try:
        # sushy 4.3 reads no TransferProtocol@Redfish.AllowableValues, so it sends any protocol asked for.
        us.simple_update('http://images.example/bmc-5.01.bin', transfer_protocol=sushy.UPDATE_PROTOCOL_TFTP)
        refused = {'status': 'accepted'}
    except sushy.exceptions.BadRequestError as exc:
        refused = {'status': exc.status_code, 'message': str(exc)}
    tasks = len(connect('session').get_task_service().tasks.get_members())
    after = {i.identity: i.version for i in us.firmware_inventory.get_members()}
    return {'refused': refused, 'tasks': tasks, 'unchanged': before == after}


def secure_boot():
    system = connect('session').get_system(SYSTEM)
    sb = system.secure_boot
    before = sb.enabled
    sb.set_enabled(True)
    sb.refresh()
    enabled = sb.enabled
    sb.reset_keys(sushy.SECURE_BOOT_RESET_KEYS_DELETE_ALL)
    sb.refresh()
    mode = sb.mode.value
    sb.set_enabled(False)
    return {'before': before, 'enabled': enabled, 'mode_after_delete': mode}


def inventory():
    system = connect('basic').get_system(SYSTEM)
    cpus, arch = system.processors.summary
    return {'cpus': cpus, 'arch': arch.value if arch else None, 'memory_gib': system.memory_summary.size_gib,
            'macs': sorted(system.ethernet_interfaces.summary), 'disks': system.simple_storage.disks_sizes_bytes,
            'chassis': [c.identity for c in system.chassis], 'managers': [m.identity for m in system.managers]}


def wrong_password(kind):
    def check():
        try:
            if kind == 'basic':
                s = sushy.Sushy(URL, auth=auth.BasicAuth(username=USER, password='wrong-password'))
            else:
                s = sushy.Sushy(URL, username=USER, password='wrong-password')
            s.get_system(SYSTEM)
        except sushy.exceptions.AccessError as exc:
            return {'raised': 'AccessError', 'status': exc.status_code}
        return {'raised': None}
    return check


for name, fn in [('basic', basic), ('session', session), ('session_or_basic', session_or_basic),
                 ('inventory', inventory), ('power', power), ('boot', boot), ('bios', bios),
                 ('bios_unknown', bios_unknown), ('bios_registry', bios_registry),
                 ('bios_apply_time', bios_apply_time), ('virtual_media', virtual_media), ('volumes', volumes),
                 ('update', update), ('update_protocol', update_protocol), ('secure_boot', secure_boot),
                 ('wrong_password_basic', wrong_password('basic')),
                 ('wrong_password_default', wrong_password('default'))]:
    run(name, fn)
