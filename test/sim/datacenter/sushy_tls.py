"""The real python3-sushy against the simulated BMC over HTTPS.

Usage: sushy_tls.py BASE_URL SYSTEM_PATH USERNAME CA_FILE (password in SIM_PASSWORD).
Prints one JSON line per check; the test judges. Never prints the password.
"""
import json
import os
import sys
import warnings

import sushy

base, path, user, ca = sys.argv[1:5]
password = os.environ['SIM_PASSWORD']
# verify=False warns on every request; the check is that it works, not what urllib3 thinks of it.
warnings.filterwarnings('ignore')


def check(name, fn):
    try:
        print(json.dumps({'check': name, **fn()}), flush=True)
    except Exception as e:  # noqa: BLE001 - the test reads the failure
        print(json.dumps({'check': name, 'raised': type(e).__name__, 'error': str(e)[:300]}), flush=True)


def unverified():
    conn = sushy.Sushy(base, username=user, password=password, verify=False)
    system = conn.get_system(path)
    before = system.power_state
    system.reset_system(sushy.RESET_ON)
    system.refresh()
    # sushy's constants are enums in newer releases and strings in older ones.
    return {'before': getattr(before, 'value', before), 'after': getattr(system.power_state, 'value', system.power_state), 'uuid': system.uuid}


def with_ca():
    conn = sushy.Sushy(base, username=user, password=password, verify=ca)
    return {'identity': conn.get_system(path).identity}


def default_trust():
    conn = sushy.Sushy(base, username=user, password=password)
    return {'identity': conn.get_system(path).identity}


check('unverified', unverified)
check('with_ca', with_ca)
check('default_trust', default_trust)
