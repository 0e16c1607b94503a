#!/usr/bin/python3
"""Drive the simulated MAAS's power_parameters, details, nodes/ and ipranges/ with requests-oauthlib.

Usage: maas-api-extras.py BASE_URL ADMIN_KEY USER_KEY

Prints one JSON object per check on its own line: {"check": NAME, ...what was observed}. It
asserts nothing itself: test/sim/maas-api-extras.test.ts holds the expectations. Keys are never
printed; the admin's power password is printed only where the test must see that it came back.
"""

import json
import sys
import time
import traceback

import requests
from oauthlib.oauth1 import SIGNATURE_HMAC
from requests_oauthlib import OAuth1


def auth(key):
    consumer_key, token_key, token_secret = key.split(":")
    return OAuth1(consumer_key, client_secret="", resource_owner_key=token_key,
                  resource_owner_secret=token_secret, signature_method=SIGNATURE_HMAC)


def seen(response, **extra):
    ctype = response.headers.get("Content-Type", "")
    if ctype.startswith("application/json"):
        body = response.json()
    elif ctype.startswith("application/bson"):
        body = response.content.hex()
    else:
        body = response.text
    out = {"status": response.status_code, "content_type": ctype, "body": body}
    out.update(extra)
    return out


def main(base, admin_key, user_key):
    api = base.rstrip("/") + "/api/2.0/"
    admin, user = auth(admin_key), auth(user_key)
    results = []

    def check(name, fn):
        try:
            out = fn()
        except Exception as err:  # noqa: BLE001 - reported, judged by the test
            out = {"error": repr(err), "trace": traceback.format_exc()}
        out["check"] = name
        print(json.dumps(out), flush=True)
        results.append(out)

    def get(path, who=admin, **params):
        return requests.get(api + path, params=params, auth=who)

    machines = get("machines/").json()
    ready = [m for m in machines if m["status_name"] == "Ready"]
    pick = ready[0]
    sid = pick["system_id"]

    check("power_parameters_admin", lambda: seen(get(f"machines/{sid}/", op="power_parameters"), system_id=sid, power_type=pick["power_type"]))
    check("power_parameters_user", lambda: seen(get(f"machines/{sid}/", who=user, op="power_parameters")))
    check("power_parameters_missing", lambda: seen(get("machines/nosuch/", op="power_parameters")))
    check("power_parameters_all_admin", lambda: seen(get("machines/", op="power_parameters"), count=len(machines)))
    check("power_parameters_some_admin", lambda: seen(requests.get(api + "machines/", params=[("op", "power_parameters"), ("id", sid), ("id", "nosuch")], auth=admin)))
    check("power_parameters_all_user", lambda: seen(get("machines/", who=user, op="power_parameters")))

    def no_password_elsewhere():
        password = get(f"machines/{sid}/", op="power_parameters").json().get("power_pass", "")
        texts = [get("machines/").text, get(f"machines/{sid}/").text, get("nodes/").text, get(f"nodes/{sid}/").text,
                 get(f"machines/{sid}/", op="details").content.decode("latin-1")]
        return {"password_set": password != "", "found_in": [i for i, t in enumerate(texts) if password and password in t]}
    check("power_password_only_there", no_password_elsewhere)

    check("details", lambda: seen(get(f"machines/{sid}/", op="details")))
    check("details_node", lambda: seen(get(f"nodes/{sid}/", op="details")))
    check("details_missing", lambda: seen(get("machines/nosuch/", op="details")))

    check("nodes_list", lambda: {"status": 200, "body": [{k: n.get(k) for k in ("system_id", "hostname", "node_type", "node_type_name", "resource_uri")} for n in get("nodes/").json()], "machines": len(machines)})
    check("nodes_by_hostname", lambda: {"body": [n["system_id"] for n in get("nodes/", hostname=pick["hostname"]).json()], "want": sid})
    check("nodes_by_id", lambda: {"body": [n["system_id"] for n in get("nodes/", id=sid).json()], "want": sid})
    check("node_read", lambda: seen(get(f"nodes/{sid}/"), machine=get(f"machines/{sid}/").json()))
    check("node_read_user", lambda: seen(get(f"nodes/{sid}/", who=user)))
    mac = pick["interface_set"][0]["mac_address"]
    check("nodes_is_registered", lambda: {
        "machine_mac": seen(get("nodes/", op="is_registered", mac_address=mac.upper().replace(":", "-"))),
        "bare_mac": seen(get("nodes/", op="is_registered", mac_address=mac.replace(":", ""))),
        "unknown": seen(get("nodes/", op="is_registered", mac_address="02:00:00:00:00:99")),
        "missing": seen(get("nodes/", op="is_registered")),
    })
    check("node_missing", lambda: seen(get("nodes/nosuch/")))

    subnets = get("subnets/").json()
    subnet = next(s for s in subnets if s["cidr"] == "10.10.1.0/24")
    prefix = "10.10.1."

    def post(path, who=admin, **data):
        return requests.post(api + path, data=data, auth=who)

    # As python-libmaas and the maas CLI send a PUT: multipart (piston reads no urlencoded PUT body
    # into the OAuth signature, so an HMAC-signed urlencoded PUT would not verify on MAAS either).
    def put(path, who=admin, **data):
        return requests.put(api + path, files={k: (None, v) for k, v in data.items()}, auth=who)

    def device_as_node():
        d = post("devices/", mac_addresses="52:54:00:ee:00:01", hostname="extras-dev")
        dev = d.json()["system_id"]
        out = {
            "created": d.status_code,
            "listed": [n.get("node_type_name") for n in get("nodes/", id=dev).json()],
            "details": seen(get(f"nodes/{dev}/", op="details")),
            "power_parameters": seen(get(f"nodes/{dev}/", op="power_parameters")),
            "delete_user": requests.delete(api + f"nodes/{dev}/", auth=user).status_code,
            "delete_machine_user": requests.delete(api + f"nodes/{sid}/", auth=user).status_code,
            "delete": requests.delete(api + f"nodes/{dev}/", auth=admin).status_code,
        }
        out["after"] = seen(get(f"nodes/{dev}/"))
        out["delete_missing"] = seen(requests.delete(api + "nodes/nosuch/", auth=admin))
        return out
    check("device_as_node", device_as_node)

    check("iprange_list_empty", lambda: seen(get("ipranges/")))
    created = {}

    def create_reserved():
        r = post("ipranges/", who=user, type="reserved", start_ip=prefix + "10", end_ip=prefix + "30", comment="lab gear")
        created["reserved"] = r.json().get("id") if r.status_code == 200 else None
        return seen(r)
    check("iprange_create_reserved_user", create_reserved)
    check("iprange_create_dynamic_user", lambda: seen(post("ipranges/", who=user, type="dynamic", start_ip=prefix + "200", end_ip=prefix + "220")))

    def create_dynamic():
        r = post("ipranges/", type="dynamic", subnet=str(subnet["id"]), start_ip=prefix + "200", end_ip=prefix + "220")
        created["dynamic"] = r.json().get("id") if r.status_code == 200 else None
        return seen(r)
    check("iprange_create_dynamic_admin", create_dynamic)
    check("iprange_overlap_reserved", lambda: seen(post("ipranges/", type="reserved", start_ip=prefix + "25", end_ip=prefix + "40")))
    check("iprange_overlap_dynamic", lambda: seen(post("ipranges/", type="dynamic", start_ip=prefix + "210", end_ip=prefix + "230")))
    check("iprange_dynamic_over_gateway", lambda: seen(post("ipranges/", type="dynamic", start_ip=prefix + "1", end_ip=prefix + "5")))
    check("iprange_missing_type", lambda: seen(post("ipranges/", start_ip=prefix + "50", end_ip=prefix + "60")))
    check("iprange_bad_type", lambda: seen(post("ipranges/", type="static", start_ip=prefix + "50", end_ip=prefix + "60")))
    check("iprange_end_before_start", lambda: seen(post("ipranges/", type="reserved", start_ip=prefix + "60", end_ip=prefix + "50")))
    check("iprange_outside_subnet", lambda: seen(post("ipranges/", type="reserved", subnet=str(subnet["id"]), start_ip="10.99.0.5", end_ip="10.99.0.6")))
    check("iprange_broadcast", lambda: seen(post("ipranges/", type="reserved", start_ip=prefix + "250", end_ip=prefix + "255")))
    check("iprange_bad_ip", lambda: seen(post("ipranges/", type="reserved", start_ip="10.10.1.x", end_ip=prefix + "60")))
    check("iprange_list", lambda: seen(get("ipranges/")))
    check("iprange_read", lambda: seen(get(f"ipranges/{created.get('reserved')}/")))
    check("iprange_read_missing", lambda: seen(get("ipranges/9999/")))
    check("iprange_update_comment", lambda: seen(put(f"ipranges/{created.get('reserved')}/", who=user, comment="moved", end_ip=prefix + "31")))
    check("iprange_update_not_owner", lambda: seen(put(f"ipranges/{created.get('dynamic')}/", who=user, comment="mine now")))
    check("iprange_update_overlap", lambda: seen(put(f"ipranges/{created.get('reserved')}/", end_ip=prefix + "205")))

    # Automatic allocation skips both ranges: a reservation without an ip, and a deploy's AUTO address.
    def reserve_skips_ranges():
        r = post("ipaddresses/", op="reserve", subnet=subnet["cidr"])
        return seen(r)
    check("reserve_skips_ranges", reserve_skips_ranges)
    check("reserve_explicit_in_reserved_range", lambda: seen(post("ipaddresses/", op="reserve", ip=prefix + "15")))

    def deploy_skips_ranges():
        a = post("machines/", op="allocate", zone="az1")
        if a.status_code != 200:
            return seen(a)
        msid = a.json()["system_id"]
        d = post(f"machines/{msid}/", op="deploy")
        if d.status_code != 200:
            return seen(d)
        deadline = time.time() + 20
        m = get(f"machines/{msid}/").json()
        while m["status_name"] != "Deployed" and time.time() < deadline:
            time.sleep(0.05)
            m = get(f"machines/{msid}/").json()
        return {"status": 200, "status_name": m["status_name"], "ip_addresses": m["ip_addresses"]}
    check("deploy_skips_ranges", deploy_skips_ranges)


    def statistics_count_ranges():
        az2 = next(s for s in subnets if s["cidr"] == "10.10.2.0/24")
        before = get(f"subnets/{az2['id']}/", op="statistics").json()
        r = post("ipranges/", type="reserved", start_ip="10.10.2.100", end_ip="10.10.2.104")
        after = get(f"subnets/{az2['id']}/", op="statistics").json()
        requests.delete(api + f"ipranges/{r.json()['id']}/", auth=admin)
        return {"status": r.status_code, "before": before["num_unavailable"], "after": after["num_unavailable"]}
    check("statistics_count_ranges", statistics_count_ranges)

    def subnet_range_usage():
        az2 = next(s for s in subnets if s["cidr"] == "10.10.2.0/24")
        made = [post("ipranges/", type="reserved", start_ip="10.10.2.100", end_ip="10.10.2.104"),
                post("ipranges/", type="dynamic", start_ip="10.10.2.200", end_ip="10.10.2.210")]
        reserved = get(f"subnets/{az2['id']}/", op="reserved_ip_ranges")
        unreserved = get(f"subnets/{az2['id']}/", op="unreserved_ip_ranges")
        for r in made:
            requests.delete(api + f"ipranges/{r.json()['id']}/", auth=admin)
        return {"made": [r.status_code for r in made], "reserved": seen(reserved), "unreserved": seen(unreserved)}
    check("subnet_range_usage", subnet_range_usage)

    def subnet_delete_drops_ranges():
        s = post("subnets/", cidr="10.77.0.0/24")
        r = post("ipranges/", type="reserved", start_ip="10.77.0.10", end_ip="10.77.0.20")
        d = requests.delete(api + f"subnets/{s.json()['id']}/", auth=admin)
        return {"subnet": s.status_code, "range": r.status_code, "deleted": d.status_code, "after": get(f"ipranges/{r.json().get('id')}/").status_code}
    check("subnet_delete_drops_ranges", subnet_delete_drops_ranges)

    check("iprange_delete_not_owner", lambda: seen(requests.delete(api + f"ipranges/{created.get('dynamic')}/", auth=user)))
    check("iprange_delete", lambda: seen(requests.delete(api + f"ipranges/{created.get('reserved')}/", auth=user), after=get(f"ipranges/{created.get('reserved')}/").status_code))
    return results


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print("usage: maas-api-extras.py BASE_URL ADMIN_KEY USER_KEY", file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
