"""Each refusal a test sees is one its operation declares: every HTTP response of every app the tests drive
(in-process or served) is recorded by operation, and a test whose app answered with a status its OpenAPI
operation does not list fails at teardown, naming the operation and the status. So the per-operation error
lists in the schema (services/api/problems.py) are checked by the whole suite, not only by schemathesis."""

from __future__ import annotations

import json
import os
import threading

import pytest
from litestar import Litestar

_seen: list[tuple[object, str, int]] = []        # (handler, "METHOD path", status)
_lock = threading.Lock()
_original = Litestar.__call__


async def _recording_call(self, scope, receive, send):
    if scope["type"] != "http":
        return await _original(self, scope, receive, send)

    async def recording_send(message):
        if message["type"] == "http.response.start" and message["status"] >= 400:
            handler = scope.get("route_handler")
            if handler is not None and getattr(handler, "include_in_schema", False) is not False:
                with _lock:
                    _seen.append((handler, f"{scope['method']} {scope.get('path_template', scope['path'])}",
                                  message["status"]))
        await send(message)
    return await _original(self, scope, receive, recording_send)


def pytest_configure(config):
    Litestar.__call__ = _recording_call


def pytest_unconfigure(config):
    Litestar.__call__ = _original


@pytest.fixture(autouse=True)
def refusals_are_declared():
    with _lock:
        _seen.clear()
    yield
    with _lock:
        seen, _seen[:] = list(_seen), []
    dump = os.environ.get("BALOOT_DUMP_REFUSALS")
    if dump:
        with open(dump, "a") as out:
            for handler, where, status in seen:
                out.write(json.dumps([handler.operation_id, where, status]) + "\n")
    undeclared = sorted({(handler.operation_id, where, status) for handler, where, status in seen
                         if status not in (handler.responses or {})})
    assert not undeclared, f"responses their operations do not declare (services/api/problems.py): {undeclared}"
