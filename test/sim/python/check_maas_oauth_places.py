#!/usr/bin/python3
"""OAuth credentials where requests-oauthlib can put them besides the Authorization header.

Usage: check_maas_oauth_places.py BASE_URL ADMIN_KEY

MAAS (maasserver/api/auth.py check_validity, over piston3's is_valid_request and
OAuthRequest.from_request) takes the oauth_* parameters from the header, the query string or a
POST form, so a client signing with signature_type="query" or "body" is served. Prints one JSON
object per check, {"check": NAME, ...what was observed}; the ava test
(test/sim/maas-oauth-places.test.ts) judges. Keys are never printed.
"""

import sys

import requests
from oauthlib.oauth1 import SIGNATURE_HMAC, SIGNATURE_PLAINTEXT, SIGNATURE_TYPE_BODY, SIGNATURE_TYPE_QUERY
from requests_oauthlib import OAuth1

from check_runner import check_registry, run_checks


def auth(key, method, place, secret=None):
    consumer_key, token_key, token_secret = key.split(":")
    return OAuth1(
        consumer_key,
        client_secret="",
        resource_owner_key=token_key,
        resource_owner_secret=token_secret if secret is None else secret,
        signature_method=method,
        signature_type=place,
    )


def observed(response, **extra):
    body = response.text
    if response.headers.get("Content-Type", "").startswith("application/json"):
        try:
            body = response.json()
        except ValueError:
            pass
    seen = {"status": response.status_code, "content_type": response.headers.get("Content-Type"), "body": body}
    # Where the client put the credentials: never the values, only that they were there.
    seen["oauth_in_query"] = "oauth_signature=" in (response.request.url or "")
    sent = response.request.body or ""
    sent = sent.decode() if isinstance(sent, bytes) else sent
    seen["oauth_in_body"] = "oauth_signature=" in sent
    seen["header"] = "Authorization" in response.request.headers
    seen.update(extra)
    return seen


def main(base, admin_key):
    api = base.rstrip("/") + "/api/2.0/"
    checks, check = check_registry()

    @check("query_plaintext_whoami")
    def _():
        return observed(requests.get(api + "users/", params={"op": "whoami"}, auth=auth(admin_key, SIGNATURE_PLAINTEXT, SIGNATURE_TYPE_QUERY)))

    @check("query_hmac_whoami")
    def _():
        return observed(requests.get(api + "users/", params={"op": "whoami"}, auth=auth(admin_key, SIGNATURE_HMAC, SIGNATURE_TYPE_QUERY)))

    @check("query_hmac_machines")
    def _():
        # machines/ reads its whole query string as ReadNodesForm constraints, the oauth_* fields too.
        return observed(requests.get(api + "machines/", params={"zone": "az1"}, auth=auth(admin_key, SIGNATURE_HMAC, SIGNATURE_TYPE_QUERY)))

    @check("header_machines_misspelt_filter")
    def _():
        # A filter MAAS does not have (hostnames for hostname) is refused, not ignored.
        r = requests.get(api + "machines/", params=[("hostnames", "nosuch"), ("zone", "az1")], auth=auth(admin_key, SIGNATURE_PLAINTEXT, "AUTH_HEADER"))
        return observed(r)

    @check("header_machines_known_filters")
    def _():
        r = requests.get(api + "machines/", params=[("zone", "az1"), ("status", "ready"), ("tags", "ssd"), ("not_in_pool", "gpu")], auth=auth(admin_key, SIGNATURE_PLAINTEXT, "AUTH_HEADER"))
        return observed(r, body=None, zones=sorted({m["zone"]["name"] for m in r.json()}) if r.ok else r.text)

    @check("body_hmac_post")
    def _():
        r = requests.post(api + "tags/", data={"name": "py-oauth-body", "comment": "signed in the form"}, auth=auth(admin_key, SIGNATURE_HMAC, SIGNATURE_TYPE_BODY))
        return observed(r)

    @check("body_plaintext_op")
    def _():
        # op travels in the same form as the credentials.
        r = requests.post(api + "maas/", data={"op": "set_config", "name": "maas_name", "value": "py-oauth-body"}, auth=auth(admin_key, SIGNATURE_PLAINTEXT, SIGNATURE_TYPE_BODY))
        got = requests.get(api + "maas/", params={"op": "get_config", "name": "maas_name"}, auth=auth(admin_key, SIGNATURE_PLAINTEXT, SIGNATURE_TYPE_QUERY))
        return observed(r, read_back=got.json() if got.ok else got.text)

    @check("query_wrong_secret")
    def _():
        return observed(requests.get(api + "machines/", auth=auth(admin_key, SIGNATURE_PLAINTEXT, SIGNATURE_TYPE_QUERY, secret="0" * 32)))

    @check("body_hmac_wrong_secret")
    def _():
        return observed(requests.post(api + "tags/", data={"name": "py-oauth-refused"}, auth=auth(admin_key, SIGNATURE_HMAC, SIGNATURE_TYPE_BODY, secret="0" * 32)))

    run_checks(checks)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: check_maas_oauth_places.py BASE_URL ADMIN_KEY")
    main(*sys.argv[1:])
