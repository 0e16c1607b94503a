#!/usr/bin/python3
"""Drive the simulated MAAS's boot resources, link_subnet and deploy options with python-requests
and requests-oauthlib (HMAC-SHA1, the signature covering the urlencoded body), as a Python MAAS
client would.

Usage: check_maas_links.py BASE_URL ADMIN_KEY

Prints one JSON object per check on its own line: {"check": NAME, ...what was observed}. It
asserts nothing: test/sim/maas-python-links.test.ts holds the expectations. Keys are never printed.
"""

import json
import sys
import traceback

import requests
from oauthlib.oauth1 import SIGNATURE_HMAC
from requests_oauthlib import OAuth1


def auth(key):
    consumer_key, token_key, token_secret = key.split(":")
    return OAuth1(consumer_key, client_secret="", resource_owner_key=token_key,
                  resource_owner_secret=token_secret, signature_method=SIGNATURE_HMAC)


def body_of(response):
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return response.json()
    return response.text


def report(name, fn):
    try:
        seen = fn()
        seen["check"] = name
    except Exception as e:  # noqa: BLE001 - the test reports it by name
        seen = {"check": name, "error": repr(e), "trace": traceback.format_exc()}
    print(json.dumps(seen), flush=True)


def main(base, admin_key):
    api = base.rstrip("/") + "/api/2.0/"
    a = auth(admin_key)
    state = {}

    def boot_resources():
        r = requests.get(api + "boot-resources/", params={"type": "uploaded"}, auth=a)
        return {"status": r.status_code, "names": [x["name"] for x in r.json()]}

    def allocate():
        r = requests.post(api + "machines/", data={"op": "allocate", "zone": "az1"}, auth=a)
        m = r.json()
        state["id"] = m["system_id"]
        state["nic"] = m["boot_interface"]["id"]
        state["auto"] = m["boot_interface"]["links"][0]["id"]
        state["cidr"] = m["boot_interface"]["links"][0]["subnet"]["cidr"]
        return {"status": r.status_code, "mode": m["boot_interface"]["links"][0]["mode"]}

    def nic_url():
        return api + "nodes/%s/interfaces/%s/" % (state["id"], state["nic"])

    def link_static():
        ip = state["cidr"].replace("0/24", "201")
        state["ip"] = ip
        r = requests.post(nic_url(), data={"op": "link_subnet", "mode": "STATIC", "subnet": state["cidr"],
                                           "ip_address": ip, "default_gateway": "True"}, auth=a)
        return {"status": r.status_code, "links": [[x["mode"], x.get("ip_address")] for x in r.json()["links"]], "ip": ip}

    def unlink_auto():
        r = requests.post(nic_url(), data={"op": "unlink_subnet", "id": str(state["auto"])}, auth=a)
        m = requests.get(api + "machines/%s/" % state["id"], auth=a).json()
        return {"status": r.status_code, "modes": [x["mode"] for x in r.json()["links"]], "ip_addresses": m["ip_addresses"]}

    def link_in_use():
        r = requests.post(nic_url(), data={"op": "link_subnet", "mode": "STATIC", "subnet": state["cidr"],
                                           "ip_address": state["ip"]}, auth=a)
        return {"status": r.status_code, "body": body_of(r)}

    def deploy_missing_image():
        r = requests.post(api + "machines/%s/" % state["id"], data={"op": "deploy", "distro_series": "rhel/9"}, auth=a)
        return {"status": r.status_code, "body": body_of(r)}

    def deploy_custom():
        r = requests.post(api + "machines/%s/" % state["id"],
                          data={"op": "deploy", "distro_series": "custom/py-image", "hwe_kernel": "hwe-22.04"}, auth=a)
        m = r.json()
        return {"status": r.status_code, "osystem": m["osystem"], "distro_series": m["distro_series"],
                "hwe_kernel": m["hwe_kernel"], "ip_addresses": m["ip_addresses"]}

    for name, fn in [("boot_resources_uploaded", boot_resources), ("allocate", allocate), ("link_static", link_static),
                     ("unlink_auto", unlink_auto), ("link_in_use", link_in_use),
                     ("deploy_missing_image", deploy_missing_image), ("deploy_custom", deploy_custom)]:
        report(name, fn)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
