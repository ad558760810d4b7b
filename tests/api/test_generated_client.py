"""A typed Python client generated from the served OpenAPI document (openapi-python-client, as an integrator
would run it) plays the README's card deal against the real server: four players sign up, one proposes the
table, the others accept, each seat plays the last of its legal actions (Kawesh excepted) until the first deal
is over, and the stored deal is audited. Every answer arrives as the generated model its operation declares."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import httpx

from tests.api.test_schemathesis import server  # noqa: F401  (the app under uvicorn, a fixture)


def generate(base: str, where) -> None:
    (where / "openapi.json").write_text(json.dumps(httpx.get(f"{base}/schema/openapi.json").json()))
    done = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path",
                           str(where / "openapi.json"), "--meta", "none", "--output-path",
                           str(where / "baloot_client")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # What the generator could not type, it says: only the binary export and the hand record (a boolean enum,
    # `sawa: true`, which openapi-python-client does not support) may be left out.
    said = done.stdout + done.stderr
    skipped = [line for line in said.splitlines() if line.startswith(("WARNING parsing", "Unable to process"))]
    assert skipped == ["WARNING parsing GET /tables/{table_id}/deals/{deal_no}/record within tables.",
                       "WARNING parsing GET /championships/{championship_id}/export/records.zip within championships.",
                       "Unable to process schema /components/schemas/RecordAction:"], said


def test_the_generated_client_plays_the_readmes_deal(server, tmp_path):   # noqa: F811
    generate(server, tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        client_module = importlib.import_module("baloot_client")
        users = importlib.import_module("baloot_client.api.users_and_tokens.create_user")
        tables = {name: importlib.import_module(f"baloot_client.api.tables.{name}")
                  for name in ("create_table", "accept_invitation", "view_table", "act_at_table", "audit_stored_deal")}
        models = importlib.import_module("baloot_client.models")

        anonymous = client_module.Client(base_url=server)
        made = [users.sync(client=anonymous, body=models.NewUser(name=f"player {i}")) for i in range(4)]
        assert all(isinstance(u, models.CreatedUser) for u in made), made
        players = [client_module.AuthenticatedClient(base_url=server, token=u.token) for u in made]
        created = tables["create_table"].sync(client=players[0], body=models.NewTable(seats=[u.user_id for u in made]))
        assert isinstance(created, models.TableCreated), created
        table_id = created.table_id
        for p in players[1:]:
            accepted = tables["accept_invitation"].sync(table_id, client=p)
            assert not isinstance(accepted, models.ProblemDocument), accepted
        n = 0
        while True:
            view = tables["view_table"].sync(table_id, client=players[0])
            assert isinstance(view, models.TableView), view
            if view.deal_no != 1:
                break
            seat = view.deal.turn
            mine = tables["view_table"].sync(table_id, client=players[seat])
            # The last legal action, Kawesh excepted: a hand of 7s, 8s and 9s would void the deal (no points).
            action = [a for a in mine.deal.legal_actions
                      if getattr(getattr(a, "bid", None), "value", None) != "kawesh"][-1]
            n += 1
            done = tables["act_at_table"].sync(table_id, client=players[seat],
                                               body=models.PlayerCommand(command_id=f"demo-{n}", action=action))
            assert isinstance(done, models.CommandAccepted), done
        # A wrong move through the same client: a typed problem document naming the rule.
        refused = tables["act_at_table"].sync(table_id, client=players[(view.deal.turn + 1) % 4], body=models.PlayerCommand(
            command_id="out-of-turn", action=models.BidAction(bid=models.BidActionBid.PASS, type_="bid")))
        assert isinstance(refused, models.ProblemDocument) and refused.rule == "not_your_turn", refused
        audit = tables["audit_stored_deal"].sync(table_id, 1, client=players[0])
        assert isinstance(audit, models.StoredAudit), audit
        assert audit.chain_intact and audit.report.valid and sum(audit.report.game_points) > 0
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "baloot_client" or m.startswith("baloot_client.")]:
            del sys.modules[name]
