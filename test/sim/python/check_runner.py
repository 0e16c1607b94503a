"""Runs a script's checks: each alone, its result printed as one JSON line for the ava test to judge."""

import json
import traceback


def run_checks(checks):
    for name, fn in checks:
        try:
            result = fn()
        except Exception as error:  # report, never stop: each check stands alone
            result = {"error": "%s: %s" % (type(error).__name__, error), "trace": traceback.format_exc(limit=3)}
        result["check"] = name
        print(json.dumps(result, sort_keys=True), flush=True)


def check_registry():
    """The checks list and a decorator, @check("name"), that adds a function to it in order."""
    checks = []

    def check(name):
        def register(fn):
            checks.append((name, fn))
            return fn

        return register

    return checks, check
