"""Requests a real BMC refuses, sent through python3-sushy's own connection (the one Ironic's
`redfish` driver uses): action parameters it does not know or of the wrong JSON type, PATCH values
of the wrong type, session logins missing a field. What sushy sees is the HTTP status and the
MessageId in the error's `code` (its HTTPError.code) and @Message.ExtendedInfo RelatedProperties.
One JSON line per check; test/sim/redfish-sushy-requests.test.ts judges them.
Usage: SIM_PASSWORD=... python3 sushy_requests.py URL SYSTEM_PATH USERNAME
"""
import os
import sys

import sushy
from sushy import auth
from checks import refusal, run

URL, SYSTEM, USER = sys.argv[1], sys.argv[2], sys.argv[3]
PASSWORD = os.environ['SIM_PASSWORD']
UPDATE = '/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate'
SESSIONS = '/redfish/v1/SessionService/Sessions'


def connect():
    return sushy.Sushy(URL, auth=auth.SessionAuth(username=USER, password=PASSWORD))


def reset_parameters():
    s = connect()
    system = s.get_system(SYSTEM)
    target = system._get_reset_action_element().target_uri
    out = {
        'unknown': refusal(lambda: s._conn.post(target, data={'ResetType': 'On', 'DelaySeconds': 5})),
        'wrong_type': refusal(lambda: s._conn.post(target, data={'ResetType': 1})),
        'missing': refusal(lambda: s._conn.post(target, data={})),
    }
    system.refresh()
    out['power_after_refusals'] = system.power_state.value
    system.reset_system(sushy.RESET_ON)
    system.refresh()
    out['power_after_reset'] = system.power_state.value
    manager = system.managers[0]
    out['manager_unknown'] = refusal(lambda: s._conn.post(manager._actions.reset.target_uri,
                                                          data={'ResetType': 'GracefulRestart', 'Force': True}))
    return out


def virtual_media_parameters():
    s = connect()
    cd = {m.identity: m for m in s.get_system(SYSTEM).managers[0].virtual_media.get_members()}['Cd']
    target = cd._actions.insert_media.target_uri
    out = {'unknown': refusal(lambda: s._conn.post(target, data={'Image': 'http://images.example/a.iso', 'Bogus': 1}))}
    cd.refresh()
    out['after_unknown'] = [cd.image, cd.inserted]
    out['wrong_type'] = refusal(lambda: s._conn.post(target, data={'Image': 'http://images.example/a.iso', 'WriteProtected': 'yes'}))
    # Every parameter the InsertMedia schema defines, as sushy sends them, is taken.
    cd.insert_media('http://images.example/b.iso', inserted=True, write_protected=True,
                    username='image-user', password='image-secret', transfer_method='Stream')
    cd.refresh()
    out['with_optional'] = [cd.image, cd.inserted]
    out['eject_unknown'] = refusal(lambda: s._conn.post(cd._actions.eject_media.target_uri, data={'Now': True}))
    cd.refresh()
    out['after_eject_unknown'] = [cd.image, cd.inserted]
    cd.eject_media()
    cd.refresh()
    out['ejected'] = [cd.image, cd.inserted]
    return out


def update_parameters():
    s = connect()
    tasks = lambda: len(s.get_task_service().tasks.get_members())  # noqa: E731
    before = tasks()
    out = {'unknown': refusal(lambda: s._conn.post(UPDATE, data={'ImageURI': 'http://images.example/bios.bin',
                                                                'TransferProtocol': 'HTTP', 'Reboot': True}))}
    out['tasks_added'] = tasks() - before
    return out


def patch_value_types():
    s = connect()
    system = s.get_system(SYSTEM)
    chassis = system.chassis[0]
    out = {
        'boot_target': refusal(lambda: s._conn.patch(SYSTEM, data={'Boot': {'BootSourceOverrideTarget': 5}})),
        'boot_enabled': refusal(lambda: s._conn.patch(SYSTEM, data={'Boot': {'BootSourceOverrideEnabled': True}})),
        'led': refusal(lambda: s._conn.patch(SYSTEM, data={'IndicatorLED': ['Lit']})),
        'chassis_led': refusal(lambda: s._conn.patch(chassis.path, data={'IndicatorLED': 1})),
        'not_in_list': refusal(lambda: s._conn.patch(SYSTEM, data={'Boot': {'BootSourceOverrideTarget': 'Tape'}})),
    }
    system.refresh()
    out['boot_after'] = [system.boot.target.value, system.boot.enabled.value]
    return out


def bios_and_volume_types():
    s = connect()
    system = s.get_system(SYSTEM)
    bios = system.bios
    settings_uri = bios._settings.resource_uri
    change = bios._actions.change_password.target_uri
    storage = system.storage.get_members()[0]
    return {
        'attributes_type': refusal(lambda: s._conn.patch(settings_uri, data={'Attributes': 'NumLock=Off'})),
        'attributes_missing': refusal(lambda: s._conn.patch(settings_uri, data={})),
        'new_password_type': refusal(lambda: s._conn.post(change, data={'PasswordName': 'AdminPassword', 'OldPassword': '',
                                                                        'NewPassword': 424242})),
        'new_password_missing': refusal(lambda: s._conn.post(change, data={'PasswordName': 'AdminPassword', 'OldPassword': ''})),
        'raid_type': refusal(lambda: s._conn.post(storage.volumes.path, data={'RAIDType': 1})),
        'volumes': len(storage.volumes.get_members()),
    }


def session_requests():
    s = connect()
    out = {
        'no_password': refusal(lambda: s._conn.post(SESSIONS, data={'UserName': USER})),
        'no_user': refusal(lambda: s._conn.post(SESSIONS, data={'Password': PASSWORD})),
        'password_type': refusal(lambda: s._conn.post(SESSIONS, data={'UserName': USER, 'Password': 12345})),
    }
    # The login sushy itself sends still works.
    out['login'] = connect().get_system(SYSTEM).identity
    return out


for name, fn in [('reset_parameters', reset_parameters), ('virtual_media_parameters', virtual_media_parameters),
                 ('update_parameters', update_parameters), ('patch_value_types', patch_value_types),
                 ('bios_and_volume_types', bios_and_volume_types), ('session_requests', session_requests)]:
    run(name, fn)
