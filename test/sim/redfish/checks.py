"""What every check script here prints: one JSON line per check, a failure reported as data (the
test that runs the script names the check that failed)."""
import json
import traceback


def emit(check, **fields):
    print(json.dumps({'check': check, **fields}, default=str), flush=True)


def run(check, fn):
    try:
        emit(check, **(fn() or {}))
    except Exception as exc:  # report every failure as data: the test names the check
        emit(check, error=f'{type(exc).__name__}: {exc}', trace=traceback.format_exc())
