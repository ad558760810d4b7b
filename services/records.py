"""A table's records, from its stored events: the events a caller may see of them (``services.access``), each
deal's summary for replays, a finished deal's hand record (baloot-hand/1) with the referee's rulings on it
and the signed receipts, a stored deal's audit (its seed against the commitment and the dealt hands, its
record replayed by the rules), and a finished game whose records are whole games (the dice game's)."""

from __future__ import annotations

import msgspec

from domain.baloot import deal as deal_mod
from domain.baloot.audit import AuditReport, audit_record
from domain.baloot.events import CardsDealt, DealScored, DealStarted, SeedRevealed
from domain.baloot.handrecord import HandReceipt, HandRecord, RecordRuling, export_record
from domain.baloot.shuffle import deck_from_seed, seed_commitment
from domain.baloot.views import ContractView, contract_view
from domain.table import TABLE_EVENTS, RulingMade, game_of
from services.anchor import Receipt, receipt_of_ruling
from services.anchor.audit import AnchorCheck
from services.errors import Conflict, NotFound
from services.tables.service import deal_finished, deal_rows, deal_spans


async def visible_events(tables, access, table_id: str, viewer, *, hands: bool = False):
    """The table's events the caller may see now (spectators: those stored the table's delay ago); with
    ``hands``, the caller must also be allowed its hand records (``policy.records``)."""
    table = await tables.load(table_id)
    seen = await (access.records(viewer, table) if hands else access.sight(viewer, table))
    return await tables.events(table_id, await access.version(table, seen))


class DealSummary(msgspec.Struct):
    """A deal as a replay lists it: where it starts, who dealt, whether it is over, its contract and result."""

    deal_no: int
    first_version: int
    dealer: int
    finished: bool
    contract: ContractView | None
    game_points: tuple[int, int] | None


def deal_summaries(events) -> list[DealSummary]:
    """Each deal of the table's ``events`` (rows (version, at, event)), in order."""
    out = []
    for n, first, evs in deal_spans(events):
        state = deal_mod.fold(evs)
        out.append(DealSummary(n, first, evs[0].dealer, deal_finished(evs), contract_view(state.contract),
                             tuple(state.result.game_points) if state.result else None))
    return out


def _hand_receipt(receipt: Receipt) -> HandReceipt:
    return msgspec.convert(msgspec.to_builtins(receipt), HandReceipt)


def finished_deal(events, deal_no: int) -> list:
    """Deal ``deal_no``'s events, once it is over (before, its record would show hidden cards)."""
    spans = deal_spans(events)
    if not 1 <= deal_no <= len(spans):
        raise NotFound("unknown_deal", f"{len(spans)} deal(s) of this table can be seen; there is no deal "
                                       f"{deal_no} to see")
    evs = spans[deal_no - 1][2]
    if not deal_finished(evs):
        raise Conflict("deal_in_progress", f"deal {deal_no} is still being played; its record would show "
                                           "hidden cards")
    return evs


def _record_of(deal_events: list, receipts: list[Receipt]) -> HandRecord:
    """A deal's hand record from its events (as (version, at, event)), with the referee's rulings on it and
    their signed receipts (an award is the audit's to apply: its team is the deal's winner)."""
    events = [e for _, _, e in deal_events]
    record = export_record(events)
    state, rulings, team = deal_mod.INITIAL, [], None
    for version, _, e in deal_events:
        state = deal_mod.evolve(state, e)
        if isinstance(e, DealScored) and e.result.awarded is not None:
            team = e.result.winner
        if isinstance(e, RulingMade):
            receipt = receipt_of_ruling(receipts, version, e.part_no, e.call)
            rulings.append(RecordRuling(
                after=state.actions, ruling=e.ruling, reason=e.reason, referee=e.referee, call=e.call,
                team=team if e.ruling == "award_deal" else None,
                receipt=None if receipt is None else _hand_receipt(receipt)))
    return msgspec.structs.replace(record, rulings=rulings) if rulings else record


def deal_record(events, deal_no: int, receipts: list[Receipt]) -> HandRecord:
    """Deal ``deal_no``'s hand record from the table's events (``deal_in_progress`` before its end), with the
    referee's rulings on it and the signed receipt of its end: the record route's, and the championship
    archive's for each deal."""
    record = _record_of(deal_rows(events, finished_deal(events, deal_no)), receipts)
    receipt = next((r for r in receipts if r.kind == "deal" and r.ref == str(deal_no)), None)
    return record if receipt is None else msgspec.structs.replace(record, receipt=_hand_receipt(receipt))


def seed_check(deal_events: list) -> str:
    """Whether a deal's revealed seed matches its commitment and gives the hands dealt, in words."""
    start = deal_events[0]
    reveal = next((e for e in deal_events if isinstance(e, SeedRevealed)), None)
    dealt = start.deck if start.deck is not None else next((e.deck for e in deal_events
                                                            if isinstance(e, CardsDealt)), None)
    if not isinstance(start, DealStarted) or start.commitment is None:
        return "no seed commitment (explicit deck)"
    if reveal is None:
        return "seed not revealed yet"
    if seed_commitment(reveal.seed) != start.commitment:
        return "seed does NOT match the commitment"
    if deck_from_seed(reveal.seed) != tuple(dealt):
        return "seed does NOT give the dealt deck"
    return "seed matches the commitment and the dealt hands"


def audit_deal(events, deal_events: list, receipts: list[Receipt]) -> AuditReport:
    """A finished deal's record, with its rulings and receipts, replayed by the rules."""
    return audit_record(_record_of(deal_rows(events, deal_events), receipts))


def whole_game(table, events) -> tuple[object, list]:
    """The table's game and its events (private ones re-derived), for a record of the whole game: only games
    whose records are whole games (the card game's are per deal), and only once it ended (before, the private
    events would show what is still to come)."""
    game = game_of(table)
    if game.info.record_scope != "game":
        raise Conflict("records_per_deal", f"a {game.info.name} table's records are per deal: "
                                           f"/tables/{table.table_id}/deals/{{n}}/record")
    played = [e for _, _, e in events if not isinstance(e, TABLE_EVENTS)]
    if not any(isinstance(e, game.info.end_event) for e in played):
        raise Conflict("game_in_progress", "the game is still being played; its record would show what is still "
                                           "to come")
    return game, played


class StoredAudit(msgspec.Struct):
    """A stored deal's audit: its stream's hash chain, its seed against the commitment, the rules replayed
    (``report``) and its anchor."""

    table_id: str
    deal_no: int
    chain_intact: bool
    first_broken_version: int | None
    seed_check: str
    report: AuditReport
    anchor: AnchorCheck     # the signed receipt and the latest signed checkpoint, as ``baloot verify`` checks
