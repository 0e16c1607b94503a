"""Where a real BMC and the simulated one could differ for python3-sushy (the library under Ironic's
`redfish` hardware type): BIOS settings status after a reboot, ETag/If-Match on PATCH, one-time
boot overrides, task monitors, error bodies, NICs and disks. One JSON line per check;
test/sim/redfish-sushy-divergences.test.ts judges them.
Usage: SIM_PASSWORD=... SHARED_PASSWORD=... python3 sushy_divergences.py URL SYSTEM_PATH USERNAME SHARED_USER
"""
import os
import sys

import requests
import sushy
from sushy import auth
from sushy import taskmonitor
from sushy.resources import settings
from checks import emit, run

URL, SYSTEM, USER, SHARED_USER = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
PASSWORD = os.environ['SIM_PASSWORD']
SHARED_PASSWORD = os.environ['SHARED_PASSWORD']


def connect(user=USER, password=PASSWORD):
    return sushy.Sushy(URL, auth=auth.SessionAuth(username=user, password=password))


def raw(method, path, **kw):
    return requests.request(method, URL + path, auth=(USER, PASSWORD), timeout=10, **kw)


def bios_update_status():
    # sushy reads @Redfish.Settings Time and Messages: no Time means nothing was ever applied.
    system = connect().get_system(SYSTEM)
    if system.power_state != sushy.POWER_STATE_ON:
        system.reset_system(sushy.RESET_ON)
    b = system.bios
    before = b.update_status.status
    b.set_attributes({'NumLock': 'Off'}, apply_time=sushy.APPLY_TIME_ON_RESET)
    b.refresh()
    staged = b.update_status.status
    system.reset_system(sushy.RESET_FORCE_RESTART)
    b.refresh()
    applied = b.update_status
    return {'before': before, 'staged': staged, 'after': applied.status,
            'messages': [[m.message_id, m.severity.value if m.severity else None] for m in applied.messages or []],
            'numlock': b.attributes['NumLock'], 'time_set': bool(b._settings.time),
            'codes': {'no_updates': settings.NO_UPDATES, 'success': settings.UPDATE_SUCCESS}}


def etag_patch():
    # sushy PATCHes a ComputerSystem with If-Match: the ETag of its last GET. A stale one is 412;
    # sushy then retries without it. A weak form of the current tag also matches (sushy's retry).
    s = connect()
    system = s.get_system(SYSTEM)
    etag = system._get_etag()
    current = raw('GET', SYSTEM).headers.get('ETag')
    stale = raw('PATCH', SYSTEM, json={'IndicatorLED': 'Lit'}, headers={'If-Match': '"stale"'})
    fresh = raw('PATCH', SYSTEM, json={'IndicatorLED': 'Off'}, headers={'If-Match': raw('GET', SYSTEM).headers['ETag']})
    body = stale.json()
    # The resource changed under sushy's cached ETag (the LED went Lit and back, and power may
    # differ): set_system_boot_options still works, through sushy's retry without If-Match.
    raw('PATCH', SYSTEM, json={'IndicatorLED': 'Blinking'})
    system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_HDD, enabled=sushy.BOOT_SOURCE_ENABLED_CONTINUOUS)
    system.refresh()
    return {'etag': etag, 'same_as_get': etag == current, 'stale': stale.status_code,
            'stale_message_id': body['error']['@Message.ExtendedInfo'][0]['MessageId'],
            'fresh': fresh.status_code, 'boot': [system.boot.target.value, system.boot.enabled.value]}


def boot_once():
    s = connect()
    system = s.get_system(SYSTEM)
    if system.power_state != sushy.POWER_STATE_ON:
        system.reset_system(sushy.RESET_ON)
    system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_PXE, enabled=sushy.BOOT_SOURCE_ENABLED_ONCE)
    system.refresh()
    set_once = system.boot.enabled.value
    system.reset_system(sushy.RESET_FORCE_RESTART)
    system.refresh()
    after_boot = system.boot.enabled.value
    system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_PXE, enabled=sushy.BOOT_SOURCE_ENABLED_CONTINUOUS)
    system.reset_system(sushy.RESET_FORCE_RESTART)
    system.refresh()
    continuous = [system.boot.target.value, system.boot.enabled.value]
    system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_HDD, enabled=sushy.BOOT_SOURCE_ENABLED_DISABLED)
    return {'set': set_once, 'after_boot': after_boot, 'continuous_after_boot': continuous}


def power_transitions():
    system = connect().get_system(SYSTEM)
    seen = []
    for name in ['On', 'GracefulShutdown', 'ForceOff', 'PushPowerButton', 'PushPowerButton', 'ForceOn',
                 'ForceOff', 'GracefulRestart']:
        system.reset_system(sushy.ResetType(name))
        system.refresh()
        seen.append([name, system.power_state.value])
    return {'seen': seen}


def errors():
    s = connect()
    out = {}
    try:
        s.get_system('/redfish/v1/Systems/no-such-system')
    except sushy.exceptions.ResourceNotFoundError as exc:
        out['missing'] = {'status': exc.status_code, 'code': exc.code, 'message': exc.detail}
    r = raw('POST', SYSTEM, json={})
    out['not_allowed'] = {'status': r.status_code, 'allow': r.headers.get('Allow'),
                          'id': r.json()['error']['@Message.ExtendedInfo'][0]['MessageId']}
    for key, patch in [('unknown_property', {'NoSuchProperty': 1}), ('read_only_property', {'PowerState': 'Off'})]:
        try:
            s._conn.patch(SYSTEM, data=patch)
            out[key] = {'status': 'accepted'}
        except sushy.exceptions.BadRequestError as exc:
            info = exc.body['@Message.ExtendedInfo'][0]
            out[key] = {'status': exc.status_code, 'id': info['MessageId'], 'related': info.get('RelatedProperties'),
                        'detail': exc.detail}
    r = raw('POST', f'{SYSTEM}/Actions/ComputerSystem.Reset', json={'ResetType': 'Sideways'})
    out['bad_action_value'] = {'status': r.status_code, 'id': r.json()['error']['@Message.ExtendedInfo'][0]['MessageId']}
    r = raw('POST', f'{SYSTEM}/Actions/ComputerSystem.Reset', data='{not json', headers={'Content-Type': 'application/json'})
    out['malformed'] = {'status': r.status_code, 'id': r.json()['error']['@Message.ExtendedInfo'][0]['MessageId']}
    return out


def task_monitor():
    # Ironic 21.4 keeps the monitor URI and asks it later: 202 while running, then the Task.
    s = connect()
    us = s.get_update_service()
    monitor = us.simple_update('http://images.example/bmc-5.01.bin')
    first = monitor.response.status_code if monitor.response is not None else None
    running = monitor.is_processing
    later = taskmonitor.TaskMonitor(s._conn, monitor.task_monitor_uri)
    later.wait(30)
    task = later.get_task()
    return {'accepted': first, 'running': running, 'done_status': later.response.status_code,
            'state': task.task_state.value, 'status': task.task_status.value, 'percent': task.percent_complete,
            'retry_after': later.response.headers.get('Retry-After'),
            'location': monitor.task_monitor_uri}


def shared_untargeted_update():
    # Gap 1 through sushy: one account for two systems, simple_update(url) with no targets.
    s = connect(SHARED_USER, SHARED_PASSWORD)
    us = s.get_update_service()
    before = {i.identity: i.version for i in us.firmware_inventory.get_members()}
    monitor = us.simple_update('http://images.example/nic-22.5.8.bin')
    monitor.wait(30)
    task = taskmonitor.TaskMonitor(s._conn, monitor.task_monitor_uri).get_task()
    after = {i.identity: i.version for i in s.get_update_service().firmware_inventory.get_members()}
    return {'state': task.task_state.value, 'status': task.task_status.value,
            'changed': sorted(k for k in after if after[k] != before.get(k))}


def nics_and_disks():
    system = connect().get_system(SYSTEM)
    nics = [{'mac': n.mac_address, 'speed': n.speed_mbps, 'state': n.status.state.value if n.status else None}
            for n in system.ethernet_interfaces.get_members()]
    storage = system.storage
    return {'summary': {mac: state.value for mac, state in system.ethernet_interfaces.summary.items()}, 'nics': nics,
            'simple': system.simple_storage.disks_sizes_bytes, 'drives': storage.drives_sizes_bytes,
            'max_drive': storage.max_drive_size_bytes, 'volumes': storage.volumes_sizes_bytes}


def manager_and_chassis():
    system = connect().get_system(SYSTEM)
    manager = system.managers[0]
    chassis = system.chassis[0]
    return {'manager_resets': sorted(v.value for v in manager.get_allowed_reset_manager_values()),
            'manager_type': manager.manager_type.value, 'chassis_power': chassis.power_state.value,
            'chassis_systems': [x.identity for x in chassis.systems], 'chassis_managers': [m.identity for m in chassis.managers]}


def reset_action_info():
    # sushy 4.3 reads the inline AllowableValues; the ActionInfo a bmcweb-style client reads agrees.
    s = connect()
    system = s.get_system(SYSTEM)
    allowed = sorted(v.value for v in system.get_allowed_reset_system_values())
    uri = system.json['Actions']['#ComputerSystem.Reset']['@Redfish.ActionInfo']
    info = s._conn.get(uri).json()
    values = sorted(next(p for p in info['Parameters'] if p['Name'] == 'ResetType')['AllowableValues'])
    return {'agree': allowed == values, 'count': len(values)}


for name, fn in [('reset_action_info', reset_action_info), ('bios_update_status', bios_update_status), ('etag_patch', etag_patch), ('boot_once', boot_once),
                 ('power_transitions', power_transitions), ('errors', errors), ('task_monitor', task_monitor),
                 ('shared_untargeted_update', shared_untargeted_update), ('nics_and_disks', nics_and_disks),
                 ('manager_and_chassis', manager_and_chassis)]:
    run(name, fn)
