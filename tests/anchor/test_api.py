"""GET /log/key, /log/checkpoints and /log/checkpoints/consistency: public, typed, verifiable."""

from __future__ import annotations

import msgspec
from litestar.testing import AsyncTestClient

from services.anchor import publish_checkpoint, verify_checkpoint
from services.anchor.checkpoints import SignedCheckpoint
from services.anchor.keys import default_signer
from services.anchor.merkle import verify_consistency
from services.api.app import create_app
from services.db import schema_url
from tests.anchor.test_tamper import build_log


async def test_the_key_and_checkpoints_are_public_and_verify(pool, database_url, db_schema):
    signer = default_signer()  # the tests' key file (tests/db_fixtures.py), which the app loads too
    await build_log(pool, signer, deals=2)
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000))
    async with AsyncTestClient(app=app, timeout=30) as api:
        r = await api.get("/log/key")  # no token
        assert r.status_code == 200, r.text
        assert r.json() == {"algorithm": "Ed25519", "public_key": signer.public_key_hex, "key_id": signer.key_id}

        r = await api.get("/log/checkpoints")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["key_id"] == signer.key_id
        assert [c["size"] for c in body["checkpoints"]] == [12, 24]
        for checkpoint in msgspec.json.decode(r.content, type=dict[str, list[SignedCheckpoint] | str])["checkpoints"]:
            assert verify_checkpoint(signer.public_key_hex, checkpoint)  # as a client would, from the JSON

        first, second = body["checkpoints"]
        r = await api.get("/log/checkpoints/consistency", params={"from": 12, "to": 24})
        assert r.status_code == 200, r.text
        proof = [bytes.fromhex(h) for h in r.json()["proof"]]
        assert verify_consistency(12, 24, bytes.fromhex(first["root"]), bytes.fromhex(second["root"]), proof)

        r = await api.get("/log/checkpoints/consistency", params={"from": 12, "to": 30})
        assert r.status_code == 400 and r.json()["field"] == "to"
        r = await api.get("/log/checkpoints/consistency", params={"from": 20, "to": 12})
        assert r.status_code == 400 and r.json()["field"] == "from"

        assert "/log/checkpoints" in (await api.get("/schema/openapi.json")).json()["paths"]
    assert await publish_checkpoint(pool, signer) is None


async def test_checkpoints_come_in_pages_each_exactly_once(pool, database_url, db_schema):
    import random

    from tests.anchor.test_tree import grow_log

    signer = default_signer()
    await grow_log(pool, signer, list(range(1, 24)), random.Random(1), {})   # 23 checkpoints
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000))
    async with AsyncTestClient(app=app, timeout=30) as api:
        whole = (await api.get("/log/checkpoints")).json()        # fewer than the default limit: one page
        assert [c["seq"] for c in whole["checkpoints"]] == list(range(1, 24)) and "next" not in whole

        seen, after, pages = [], 0, []
        while True:
            r = await api.get("/log/checkpoints", params={"after": after, "limit": 5})
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["key_id"] == signer.key_id
            seen += [c["seq"] for c in body["checkpoints"]]
            pages.append(len(body["checkpoints"]))
            if "next" not in body:
                break
            assert body["next"] == body["checkpoints"][-1]["seq"]
            after = body["next"]
        assert seen == list(range(1, 24)) and pages == [5, 5, 5, 5, 3]
        assert seen == [c["seq"] for c in whole["checkpoints"]]

        assert (await api.get("/log/checkpoints", params={"limit": 23})).json().get("next") is None
        assert (await api.get("/log/checkpoints", params={"limit": 22})).json()["next"] == 22
        assert (await api.get("/log/checkpoints", params={"after": 23})).json() == {
            "key_id": signer.key_id, "checkpoints": []}
        for bad in ({"limit": 0}, {"limit": 1001}, {"after": -1}):
            r = await api.get("/log/checkpoints", params=bad)
            assert r.status_code == 400 and r.json()["field"] == f"query.{next(iter(bad))}", r.text


async def test_inclusion_and_consistency_proofs_from_stored_subtrees(pool, connect, database_url, db_schema):
    import random

    from services.anchor.leaves import leaf_data, log_leaves
    from services.anchor.merkle import inclusion_proof, leaf_hash, verify_inclusion
    from tests.anchor.test_tamper import superuser
    from tests.anchor.test_tree import grow_log

    signer = default_signer()
    first, second = await grow_log(pool, signer, [300, 900], random.Random(2), {})
    leaves = await log_leaves(pool)
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000))
    async with AsyncTestClient(app=app, timeout=30) as api:
        r = await api.get("/log/checkpoints/inclusion", params={"index": 450, "size": 900})
        assert r.status_code == 200, r.text
        body = r.json()
        path = [bytes.fromhex(h) for h in body["proof"]]
        assert (body["index"], body["size"], body["leaf_hash"]) == (450, 900, leaves[450].hex())
        assert path == inclusion_proof(450, leaves)
        assert verify_inclusion(450, 900, bytes.fromhex(body["leaf_hash"]), path, bytes.fromhex(second.root))

        # By the event, as a receipt names it: stream, version and chain hash.
        stream, version, hash = (await pool.fetch(
            "SELECT stream_id, version, hash FROM events ORDER BY tx_id, position"))[450]
        by_event = {"stream": stream, "version": version, "hash": hash.hex(), "size": 900}
        r = await api.get("/log/checkpoints/inclusion", params=by_event)
        assert r.status_code == 200 and r.json() == body, r.text
        assert leaf_hash(leaf_data(stream, version, hash)).hex() == body["leaf_hash"]
        r = await api.get("/log/checkpoints/inclusion", params={**by_event, "size": 300})
        assert r.status_code == 404 and r.json()["rule"] == "unknown_event"       # not in the older tree
        r = await api.get("/log/checkpoints/inclusion", params={**by_event, "hash": "ab" * 32})
        assert r.status_code == 404 and r.json()["rule"] == "unknown_event"       # nothing said about it

        refused = [({"index": 1, "size": 500}, 404, "size"), ({"index": 1, "size": 901}, 400, "size"),
                   ({"index": 900, "size": 900}, 400, "index"), ({"size": 900}, 400, "index"),
                   ({**by_event, "index": 3}, 400, "index"), ({"stream": stream, "size": 900}, 400, "index")]
        for params, status, field in refused:
            r = await api.get("/log/checkpoints/inclusion", params=params)
            assert (r.status_code, r.json().get("field")) == (status, field), (params, r.text)

        r = await api.get("/log/checkpoints/consistency", params={"from": 300, "to": 900})
        proof = [bytes.fromhex(h) for h in r.json()["proof"]]
        assert verify_consistency(300, 900, bytes.fromhex(first.root), bytes.fromhex(second.root), proof)
        for params, status, field in [({"from": 299, "to": 900}, 404, "from"), ({"from": 300, "to": 500}, 404, "to"),
                                      ({"from": 0, "to": 901}, 400, "to")]:
            r = await api.get("/log/checkpoints/consistency", params=params)
            assert (r.status_code, r.json()["field"]) == (status, field), (params, r.text)
        assert (await api.get("/log/checkpoints/consistency", params={"from": 0, "to": 900})).json()["proof"] == []

        # Without the stored subtrees (a database not yet backfilled) a proof is refused, not computed from
        # the whole log; one answered before is kept in the cache.
        conn = await superuser(connect)
        await conn.execute("DELETE FROM log_tree")
        r = await api.get("/log/checkpoints/inclusion", params={"index": 451, "size": 900})
        assert r.status_code == 503 and r.json()["rule"] == "proofs_unavailable", r.text
        assert r.headers["retry-after"] == "60"
        r = await api.get("/log/checkpoints/consistency", params={"from": 300, "to": 900})
        assert r.status_code == 200 and [bytes.fromhex(h) for h in r.json()["proof"]] == proof
