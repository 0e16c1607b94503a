"""python3-sushy's VirtualMedia.set_verify_certificate against the simulated BMC: a PATCH of
VerifyCertificate, which the drive shows afterwards (and a wrong type refused by sushy itself).
One JSON line per check; test/sim/redfish-sushy-virtual-media.test.ts judges them.
Usage: SIM_PASSWORD=... python3 sushy_virtual_media.py URL USERNAME MANAGER_ID
"""
import os
import sys

import sushy
from sushy import auth
from checks import refusal, run

URL, USER, MANAGER = sys.argv[1], sys.argv[2], sys.argv[3]
PASSWORD = os.environ['SIM_PASSWORD']


def verify_certificate():
    s = sushy.Sushy(URL, auth=auth.SessionAuth(username=USER, password=PASSWORD))
    cd = s.get_manager(f'/redfish/v1/Managers/{MANAGER}').virtual_media.get_member(
        f'/redfish/v1/Managers/{MANAGER}/VirtualMedia/Cd')
    before = cd.verify_certificate
    outcome = refusal(lambda: cd.set_verify_certificate(True))
    cd.refresh(force=True)
    return {'before': before, 'outcome': outcome, 'after': cd.verify_certificate}


run('verify_certificate', verify_certificate)
