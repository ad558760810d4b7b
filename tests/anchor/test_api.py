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
