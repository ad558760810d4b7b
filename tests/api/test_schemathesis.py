"""Schemathesis against the served OpenAPI schema: for every operation, generated requests (with a valid
bearer token, and path ids that name real tables half of the time) never get a 5xx, and every response
matches what the schema says about it.

The app runs under uvicorn on 127.0.0.1 (an ephemeral port) in a thread of its own, on a fresh schema of
the test database; schemathesis calls it over real HTTP.
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading

import httpx
import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance, \
    status_code_conformance

from services.api.app import create_app
from services.db import create_scratch_schema, drop_schema, schema_url

EXAMPLES = 50          # per operation: the whole run stays well under a minute


@pytest.fixture(scope="module")
def server(database_url):
    """The app under uvicorn in a thread; yields its base URL."""
    name = asyncio.run(create_scratch_schema(database_url, "test"))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    app = create_app(schema_url(database_url, name), rate_limit=("second", 100_000))
    uv = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning", timeout_graceful_shutdown=5))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        uv.should_exit = True
        thread.join(30)
        sock.close()
        asyncio.run(drop_schema(database_url, name))
    assert not thread.is_alive()


def _choose(actions: list[dict], rng: random.Random) -> dict:
    if actions[0]["type"] == "double":
        return next(a for a in actions if a["call"] == "pass")
    if actions[0]["type"] == "bid":
        takes = [a for a in actions if a["bid"] not in ("pass", "wala", "kawesh")]
        return rng.choice(takes) if takes else actions[0]
    return rng.choice(actions)


def _play(client: httpx.Client, tid: str, tokens: list[dict], referee: dict, *, until_deal: int | None) -> None:
    """Play with each seat's own token until deal ``until_deal`` starts (None: to the end of the game)."""
    rng = random.Random(1)
    for n in range(5000):
        v = client.get(f"/tables/{tid}/view", headers=tokens[0]).json()
        if v["phase"] == "ended" or (until_deal is not None and v["deal_no"] >= until_deal):
            return
        turn = v["deal"]["turn"]
        if v["deal"]["phase"] == "review":      # a recorded table: the referee (its creator) records the result
            r = client.post(f"/tables/{tid}/rulings", headers=referee,
                            json={"command_id": f"setup-{n}", "ruling": {"type": "record_result"}})
            assert r.status_code == 200, r.text
            continue
        mine = client.get(f"/tables/{tid}/view", headers=tokens[turn]).json()
        r = client.post(f"/tables/{tid}/commands", headers=tokens[turn],
                        json={"command_id": f"setup-{n}", "action": _choose(mine["deal"]["legal_actions"], rng)})
        assert r.status_code == 200, r.text
    raise AssertionError("the setup game did not end")


@pytest.fixture(scope="module")
def world(server):
    """A token and real ids: a table in its second deal (one finished deal) and a finished game."""
    with httpx.Client(base_url=server, timeout=30) as client:
        users = [client.post("/users", json={"name": f"seat {i}"}).json() for i in range(5)]
        tokens = [{"Authorization": f"Bearer {u['token']}"} for u in users]
        seats = [u["user_id"] for u in users[:4]]
        referee = tokens.pop()          # the tables' creator, not seated: their referee
        live = client.post("/tables", json={"seats": seats, "mode": "recorded"}, headers=referee).json()["table_id"]
        done = client.post("/tables", json={"seats": seats}, headers=referee).json()["table_id"]
        for tid in (live, done):
            for t in tokens:
                assert client.post(f"/tables/{tid}/accept", headers=t).status_code == 200
        _play(client, live, tokens, referee, until_deal=2)
        _play(client, done, tokens, referee, until_deal=None)
    return {"token": tokens[0], "live": live, "done": done, "seats": seats}


@pytest.fixture(scope="module")
def api_schema(server):
    return schemathesis.openapi.from_url(f"{server}/schema/openapi.json")


def test_the_schema_lists_every_table_operation(api_schema):
    ids = {op.ok().definition.raw.get("operationId") for op in api_schema.get_all_operations()}
    assert TABLE_OPERATIONS <= ids


TABLE_OPERATIONS = {"createUser", "whoAmI", "createTable", "listTables", "viewTable", "actAtTable", "ruleAtTable",
                    "followTable", "listDeals", "handRecord", "tableStateAt", "auditStoredDeal", "auditHandRecord",
                    "health"}
# What must always hold: no 5xx, and a body that matches the schema wherever the schema describes it.
SAFE = [not_a_server_error, response_schema_conformance]
# Every status and content type the API answers with is documented (problem documents included).
DOCUMENTED = [status_code_conformance, content_type_conformance]


def _operations(api_schema, tables: bool) -> list:
    ops = [r.ok() for r in api_schema.get_all_operations()]
    return [op for op in ops if (op.definition.raw.get("operationId") in TABLE_OPERATIONS) == tables]


def _run(operations, checks, server: str, world: dict) -> dict[str, str]:
    """Generated requests for each operation, validated with ``checks``; the failures by operation."""
    failures: dict[str, str] = {}
    for operation in operations:
        label = f"{operation.method.upper()} {operation.path}"

        @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy(), real=st.booleans(), finished=st.booleans(),
               deal=st.sampled_from([1, 2]))
        def run(case, real, finished, deal):
            params = case.path_parameters or {}
            if "table_id" in params and (real or operation.path.endswith("/live")):
                # /live ends only with its game: follow the finished one, never a live table.
                params["table_id"] = world["done"] if finished or operation.path.endswith("/live") \
                    else world["live"]
            if "deal_no" in params and real:
                params["deal_no"] = deal
            case.call_and_validate(base_url=server, headers=world["token"], checks=checks, timeout=15)

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:   # collect all, to report every failing operation at once
            failures[label] = f"{type(exc).__name__}: {exc}"[:2000]
    return failures


def _report(failures: dict[str, str]) -> str:
    return "\n\n".join(f"{k}\n{v}" for k, v in failures.items())


def test_table_operations_never_answer_5xx_nor_break_their_response_schema(api_schema, server, world):
    operations = _operations(api_schema, tables=True)
    assert len(operations) == len(TABLE_OPERATIONS)
    failures = _run(operations, SAFE, server, world)
    assert not failures, _report(failures)


def test_table_operations_document_every_status_and_content_type_they_answer_with(api_schema, server, world):
    failures = _run(_operations(api_schema, tables=True), DOCUMENTED, server, world)
    assert not failures, _report(failures)


def test_every_other_operation_never_answers_5xx_nor_breaks_its_response_schema(api_schema, server, world):
    """The operations added beside the tables (championships, as they land): the same safety net."""
    failures = _run(_operations(api_schema, tables=False), SAFE, server, world)
    assert not failures, _report(failures)
