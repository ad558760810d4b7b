"""Numbers out of range never answer 5xx: for every operation of the served OpenAPI document and every integer
parameter it takes (query or path), values beyond PostgreSQL's bigint (2**64, 2**70) or below it (-2**63-1)
are refused as a 400 problem document (or answered as any other refusal), never a 500 from the database.

The requests are otherwise plausible: a fresh user's bearer token, the ids of a real table and championship
of his where the path names one, the other required parameters and the body's required fields filled from
the schema. The app runs in-process (ASGI), so the whole sweep takes seconds.
"""

from __future__ import annotations

import re

from tests.api.conftest import new_user
from tests.api.test_championships import create

OUT_OF_RANGE = (2**64, 2**70, -2**63 - 1)


def _resolve(schema: dict, doc: dict) -> dict:
    while "$ref" in schema:
        node = doc
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _is_integer(schema: dict, doc: dict) -> bool:
    schema = _resolve(schema, doc)
    if schema.get("type") == "integer" or (isinstance(schema.get("type"), list) and "integer" in schema["type"]):
        return True
    return any(_is_integer(s, doc) for s in schema.get("oneOf", []) + schema.get("anyOf", []))


def _plausible(schema: dict, doc: dict, name: str, ids: dict, depth: int = 0):
    """A value the schema accepts, as far as a simple reading of it goes (ids of real things where named)."""
    schema = _resolve(schema, doc)
    if name in ids:
        return ids[name]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("oneOf", "anyOf"):
        options = [s for s in schema.get(key, []) if _resolve(s, doc).get("type") != "null"]
        if options:
            return _plausible(options[0], doc, name, ids, depth)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "integer":
        return max(schema.get("minimum", 1), 1)
    if kind == "number":
        return max(schema.get("minimum", 1), 1)
    if kind == "boolean":
        return False
    if kind == "array":
        n = schema.get("minItems", 0)
        return [_plausible(schema.get("items", {}), doc, name, ids, depth + 1) for _ in range(n)]
    if kind == "object" or "properties" in schema:
        if depth > 4:
            return {}
        props = schema.get("properties", {})
        return {k: _plausible(props.get(k, {}), doc, k, ids, depth + 1) for k in schema.get("required", [])}
    if name == "command_id":
        return "out-of-range"
    return "x"


# Parameters sent beside the one swept, where without them the operation refuses before it reads anything.
COMPANIONS = {"logInclusion": {"index": 0}}


async def _world(api, monkeypatch) -> tuple[dict, dict]:
    """A fresh user's headers and the ids of his things: a table he referees (he proposed it without a seat),
    a championship he organises, a webhook endpoint of his."""
    user, headers = await new_user(api, "out of range")
    others = [(await new_user(api, f"other {i}"))[0] for i in range(2)]
    r = await api.post("/tables", headers=headers, json={"seats": [*others, "bot", "bot"]})
    assert r.status_code == 201, r.text
    ids = {"table_id": r.json()["table_id"], "championship_id": await create(api, headers),
           "user_id": user, "seats": [user, others[0], "bot", "bot"]}
    monkeypatch.setenv("BALOOT_WEBHOOK_ALLOW", "127.0.0.1/32")       # the operator allows a loopback target
    r = await api.post("/webhooks", headers=headers, json={"url": "http://127.0.0.1:9/hook",
                                                           "championship_id": ids["championship_id"]})
    assert r.status_code == 201, r.text
    ids["endpoint_id"] = r.json()["endpoint"]["endpoint_id"]
    return headers, ids


async def test_no_integer_parameter_of_any_operation_answers_5xx_out_of_range(api, monkeypatch):
    doc = (await api.get("/schema/openapi.json")).json()
    headers, ids = await _world(api, monkeypatch)
    tried, failures = 0, []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            params = [p for p in op.get("parameters", []) if p.get("in") in ("query", "path")]
            numbers = [p for p in params if _is_integer(p.get("schema", {}), doc)]
            if not numbers:
                continue
            body = None
            content = op.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                body = _plausible(content["application/json"].get("schema", {}), doc, "", ids)
            for target in numbers:
                for value in OUT_OF_RANGE:
                    values = {p["name"]: value if p is target else _plausible(p.get("schema", {}), doc, p["name"], ids)
                              for p in params if p is target or p.get("required") or p.get("in") == "path"}
                    url = re.sub(r"\{(\w+)\}", lambda m, v=values: str(v[m.group(1)]), path)
                    query = {**{k: v for k, v in COMPANIONS.get(op.get("operationId"), {}).items()
                                if k != target["name"]},
                             **{p["name"]: values[p["name"]] for p in params
                                if p.get("in") == "query" and p["name"] in values}}
                    r = await api.request(method.upper(), url, params=query, headers=headers,
                                          json=body if body is not None else None)
                    tried += 1
                    if r.status_code >= 500:
                        failures.append(f"{method.upper()} {path} {target['name']}={value}: {r.status_code} "
                                        f"{r.text[:200]}")
                    elif r.status_code == 400:
                        assert r.headers["content-type"].startswith("application/problem+json"), r.text
    assert tried >= 40, tried           # the sweep reached the API's integer parameters (about thirty of them)
    assert not failures, "\n".join(failures)


async def test_a_checkpoint_cursor_beyond_bigint_is_a_400_naming_it(api):
    r = await api.get("/log/checkpoints", params={"after": "5102395279888185524645527552"})
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["rule"] == "invalid_field" and body["field"] == "query.after", body
