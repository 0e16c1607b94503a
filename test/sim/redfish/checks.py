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


def refusal(fn):
    """Status, MessageId (sushy's HTTPError.code), RelatedProperties, class and text of the HTTP
    error sushy raised for fn(), or 'accepted' when fn succeeded."""
    import sushy  # only the sushy scripts ask for it
    try:
        fn()
    except sushy.exceptions.HTTPError as exc:
        info = ((exc.body or {}).get('@Message.ExtendedInfo') or [{}])[0]
        return {'status': exc.status_code, 'code': exc.code, 'related': info.get('RelatedProperties'),
                'type': type(exc).__name__, 'message': str(exc)}
    return 'accepted'
