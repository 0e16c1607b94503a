"""Edges of the simulated BMC as python3-sushy (Ironic's Redfish client) meets them: a system id
whose percent-encoding is not UTF-8, a BIOS settings PATCH with a misplaced property, and the names
the BMC makes from image URLs that carry credentials or a signed query.
One JSON line per check; test/sim/redfish-sushy-request-edges.test.ts judges them.
Usage: SIM_PASSWORD=... python3 sushy_request_edges.py URL SYSTEM_PATH USERNAME
"""
import os
import sys
import time

import sushy
from sushy import auth
from checks import refusal, run

URL, SYSTEM, USER = sys.argv[1], sys.argv[2], sys.argv[3]
PASSWORD = os.environ['SIM_PASSWORD']


def connect(seen=None):
    s = sushy.Sushy(URL, auth=auth.SessionAuth(username=USER, password=PASSWORD))
    if seen is not None:
        # The connector's hook sees every response, retries included.
        s._conn._response_callback = lambda r: seen.append((r.request.method, r.request.path_url, r.status_code))
    return s


def malformed_system_id():
    # sushy retries a GET that answered 5xx ten times, three seconds apart: a 500 here costs 30 s.
    seen = []
    s = connect(seen)
    path = '/redfish/v1/Systems/%E0%A4'
    started = time.monotonic()
    out = refusal(lambda: s.get_system(path))
    out['seconds'] = round(time.monotonic() - started, 1)
    out['attempts'] = len([x for x in seen if x[1] == path])
    return out


def bios_settings_property():
    s = connect()
    bios = s.get_system(SYSTEM).bios
    settings = bios._settings.resource_uri
    # ApplyTime belongs inside @Redfish.SettingsApplyTime; at the top it is a property Bios has not.
    out = {'misplaced': refusal(lambda: s._conn.patch(settings, data={'Attributes': {'NumLock': 'Off'}, 'ApplyTime': 'OnReset'}))}
    bios.refresh()
    out['pending_after_refusal'] = dict(bios.pending_attributes)
    bios.set_attributes({'NumLock': 'Off'}, apply_time=sushy.APPLY_TIME_ON_RESET)
    bios.refresh()
    out['pending_after_sushy'] = dict(bios.pending_attributes)
    return out


def image_names():
    s = connect()
    cd = {m.identity: m for m in s.get_system(SYSTEM).managers[0].virtual_media.get_members()}['Cd']
    cd.insert_media('https://swift.example/v1/AUTH_x/ironic/boot-1.iso?temp_url_sig=SIGSECRET&temp_url_expires=1900000000')
    cd.refresh()
    out = {'image_name': cd.image_name, 'inserted': cd.inserted}
    monitor = s.get_update_service().simple_update('http://fwuser:fw-pass-123@firmware.example')
    deadline = time.monotonic() + 10
    while monitor.check_is_processing and time.monotonic() < deadline:
        time.sleep(0.05)
    task = monitor.get_task()
    out['task_name'] = task.name
    out['task_state'] = task.task_state.value if task.task_state else None
    return out


run('malformed_system_id', malformed_system_id)
run('bios_settings_property', bios_settings_property)
run('image_names', image_names)
