#!/usr/bin/python3
"""Drive the simulated MAAS with python-requests and requests-oauthlib, the way Python MAAS clients do.

Usage: check_maas.py BASE_URL ADMIN_KEY USER_KEY
BASE_URL is http://host:port/MAAS; a key is consumer_key:token_key:token_secret.

Prints one JSON object per check on its own line: {"check": NAME, ...what was observed}. It
asserts nothing itself: the ava test (test/sim/maas-python.test.ts) holds the expectations, so a
wrong answer fails there with both sides shown. Keys are never printed.
"""

import base64
import io
import sys
from email.generator import Generator
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from urllib.parse import urljoin

import requests
from oauthlib.oauth1 import SIGNATURE_HMAC, SIGNATURE_PLAINTEXT
from requests_oauthlib import OAuth1

from check_runner import check_registry, run_checks


def auth(key, method=SIGNATURE_PLAINTEXT):
    consumer_key, token_key, token_secret = key.split(":")
    # MAAS's consumer secret is empty: the signature rests on the token secret alone.
    return OAuth1(
        consumer_key,
        client_secret="",
        resource_owner_key=token_key,
        resource_owner_secret=token_secret,
        signature_method=method,
    )


def body_of(response):
    if response.headers.get("Content-Type", "").startswith("application/json"):
        try:
            return response.json()
        except ValueError:
            return response.text
    return response.text


def observed(response, **extra):
    seen = {
        "status": response.status_code,
        "content_type": response.headers.get("Content-Type"),
        "body": body_of(response),
    }
    seen.update(extra)
    return seen


def main(base, admin_key, user_key):
    api = base.rstrip("/") + "/api/2.0/"
    hmac_admin = auth(admin_key, SIGNATURE_HMAC)
    plain_admin = auth(admin_key)
    checks, check = check_registry()

    @check("version_anonymous")
    def _():
        return observed(requests.get(api + "version/"))

    @check("whoami_plaintext")
    def _():
        return observed(requests.get(api + "users/", params={"op": "whoami"}, auth=plain_admin))

    @check("whoami_hmac")
    def _():
        return observed(requests.get(api + "users/", params={"op": "whoami"}, auth=hmac_admin))

    @check("whoami_user_key")
    def _():
        return observed(requests.get(api + "users/", params={"op": "whoami"}, auth=auth(user_key, SIGNATURE_HMAC)))

    @check("hmac_query_repeated")
    def _():
        # A repeated key and a space in the query string, both signed by oauthlib.
        r = requests.get(api + "machines/", params=[("zone", "az1"), ("zone", "az2"), ("pool", "gpu")], auth=hmac_admin)
        return observed(r, body=None, count=len(r.json()) if r.ok else None)

    @check("hmac_urlencoded_post")
    def _():
        r = requests.post(api + "tags/", data={"name": "py-urlencoded", "comment": "a b&c=d ü"}, auth=hmac_admin)
        return observed(r)

    @check("hmac_multipart_post")
    def _():
        # files= makes requests send multipart/form-data; oauthlib leaves its fields out of the signature.
        r = requests.post(api + "tags/", files={"name": (None, "py-multipart"), "comment": (None, "line 1\r\nline 2")}, auth=hmac_admin)
        sent = r.request.headers.get("Content-Type", "")
        sent = sent.decode() if isinstance(sent, bytes) else sent
        return observed(r, sent_type=sent.split(";")[0])

    @check("multipart_deploy_user_data")
    def _():
        allocated = requests.post(api + "machines/", params={"op": "allocate"}, data={"zone": "az1"}, auth=plain_admin)
        if not allocated.ok:
            return observed(allocated, step="allocate")
        system_id = allocated.json()["system_id"]
        user_data = base64.b64encode(b"#!/bin/sh\necho hello from python\n").decode()
        r = requests.post(
            api + "machines/%s/" % system_id,
            params={"op": "deploy"},
            files={"user_data": (None, user_data), "distro_series": (None, "jammy")},
            auth=plain_admin,
        )
        seen = observed(r, body=None, step="deploy")
        if r.ok:
            seen.update(status_name=r.json().get("status_name"), distro_series=r.json().get("distro_series"))
        return seen

    @check("multipart_set_config")
    def _():
        r = requests.post(api + "maas/", files={"op": (None, "set_config"), "name": (None, "maas_name"), "value": (None, "py-lab")}, auth=plain_admin)
        got = requests.get(api + "maas/", params={"op": "get_config", "name": "maas_name"}, auth=hmac_admin)
        return observed(r, read_back=body_of(got))

    @check("mime_multipart_like_maas_cli")
    def _():
        # The maas CLI (apiclient/multipart.py) writes its body with the email package: a quoted
        # boundary, base64 parts with their own headers, CRLF lines and no final CRLF.
        message = MIMEMultipart("form-data")
        for name, value in (("name", "py-mime"), ("comment", "from the email package, ünïcode")):
            part = MIMEApplication(value.encode("utf-8"), charset="utf-8")
            part.add_header("Content-Disposition", "form-data", name=name)
            part.set_type("text/plain")
            message.attach(part)
        buf = io.StringIO()
        generator = Generator(buf, False)
        generator._write_headers = lambda self: None
        generator.flatten(message)
        body = "\r\n".join(buf.getvalue().splitlines())
        r = requests.post(api + "tags/", data=body.encode("ascii"), headers={"Content-Type": message["Content-Type"]}, auth=plain_admin)
        return observed(r, sent_type=message["Content-Type"].split(";")[0])

    @check("token_lifecycle")
    def _():
        made = requests.post(api + "account/", params={"op": "create_authorisation_token"}, data={"name": "py"}, auth=hmac_admin)
        token = made.json()
        key = "%s:%s:%s" % (token["consumer_key"], token["token_key"], token["token_secret"])
        before = requests.get(api + "users/", params={"op": "whoami"}, auth=auth(key, SIGNATURE_HMAC))
        deleted = requests.post(api + "account/", params={"op": "delete_authorisation_token"}, data={"token_key": token["token_key"]}, auth=plain_admin)
        after = requests.get(api + "users/", params={"op": "whoami"}, auth=auth(key, SIGNATURE_HMAC))
        return {"status": made.status_code, "name": token.get("name"), "before": before.status_code, "deleted": deleted.status_code, "after": after.status_code}

    @check("files_roundtrip")
    def _():
        # files/ as juju uses it: a real upload (requests' files= with a filename), every byte value.
        content = bytes(range(256))
        put = requests.post(api + "files/", files={"filename": (None, "py-state"), "file": ("py-state", content, "application/octet-stream")}, auth=hmac_admin)
        raw = requests.get(api + "files/", params={"op": "get", "filename": "py-state"}, auth=hmac_admin)
        read = requests.get(api + "files/py-state/", auth=plain_admin)
        listed = requests.get(api + "files/", params={"prefix": "py-"}, auth=hmac_admin)
        anon = requests.get(urljoin(base, read.json()["anon_resource_uri"])) if read.ok else None
        deleted = requests.delete(api + "files/py-state/", auth=hmac_admin)
        after = requests.get(api + "files/py-state/", auth=plain_admin)
        return {
            "put": put.status_code,
            "raw_equal": raw.content == content,
            "json_equal": read.ok and base64.b64decode(read.json()["content"]) == content,
            "listed": [f["filename"] for f in listed.json()] if listed.ok else listed.status_code,
            "anon": anon.status_code if anon is not None else None,
            "anon_equal": anon is not None and anon.content == content,
            "deleted": deleted.status_code,
            "after": after.status_code,
            "workaround": after.headers.get("Workaround"),
        }

    @check("wrong_secret")
    def _():
        consumer_key, token_key, _secret = admin_key.split(":")
        return observed(requests.get(api + "machines/", auth=auth("%s:%s:%s" % (consumer_key, token_key, "not-the-secret"), SIGNATURE_HMAC)))

    @check("unknown_key")
    def _():
        return observed(requests.get(api + "machines/", auth=auth("nobody:nothing:none")))

    @check("no_credentials")
    def _():
        return observed(requests.get(api + "machines/"))

    @check("validation_error")
    def _():
        return observed(requests.post(api + "tags/", data={"name": "bad name!"}, auth=plain_admin))

    @check("not_found")
    def _():
        return observed(requests.get(api + "machines/nosuch/", auth=plain_admin))

    @check("ipaddresses_reserve_release")
    def _():
        # The VIP flow a client of MAAS runs: reserve in a subnet with a hostname, list, release.
        subnets = requests.get(api + "subnets/", auth=hmac_admin).json()
        cidr = subnets[0]["cidr"]
        r = requests.post(api + "ipaddresses/", params={"op": "reserve"}, data={"subnet": cidr, "hostname": "py-vip"}, auth=hmac_admin)
        ip = r.json().get("ip") if r.status_code == 200 else None
        listed = requests.get(api + "ipaddresses/", params={"ip": ip}, auth=hmac_admin).json() if ip else []
        taken = requests.post(api + "ipaddresses/", params={"op": "reserve"}, data={"ip": ip}, auth=plain_admin) if ip else None
        released = requests.post(api + "ipaddresses/", params={"op": "release"}, data={"ip": ip}, auth=hmac_admin) if ip else None
        after = requests.get(api + "ipaddresses/", auth=hmac_admin).json()
        return observed(r, cidr=cidr, listed=[a["ip"] for a in listed],
                        taken_status=taken.status_code if taken is not None else None, taken_body=taken.text if taken is not None else None,
                        released=released.status_code if released is not None else None, after=[a["ip"] for a in after])

    @check("method_not_allowed")
    def _():
        r = requests.delete(api + "users/", auth=plain_admin)
        return observed(r, allow=r.headers.get("Allow"))

    @check("unknown_op")
    def _():
        return observed(requests.get(api + "machines/", params={"op": "frobnicate"}, auth=plain_admin))

    @check("missing_trailing_slash")
    def _():
        r = requests.get(api + "machines", auth=plain_admin)
        return observed(r, redirects=len(r.history))

    run_checks(checks)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: check_maas.py BASE_URL ADMIN_KEY USER_KEY")
    main(*sys.argv[1:])
