"""Domain events on the wire: tags as type names, schema versions, upcasting old events on read."""

from __future__ import annotations

from typing import ClassVar

import msgspec
import pytest

from services.eventstore import Codec, CodecError, NewEvent, Upcasters, append, read_stream


class BidMade(msgspec.Struct, frozen=True, tag="bid_made"):
    """Version 3: v1 had `bid` as "sun"/"hokum" text, v2 added the seat's team."""

    schema_version: ClassVar[int] = 3
    seat: int
    contract: str
    team: int


class CardPlayed(msgspec.Struct, frozen=True, tag="card_played"):
    seat: int
    card: int


upcasters = Upcasters()


@upcasters.register("bid_made", 1)
def _bid_v1_to_v2(data: dict) -> dict:
    data = dict(data)
    data["contract"] = data.pop("bid")
    return data


@upcasters.register("bid_made", 2)
def _bid_v2_to_v3(data: dict) -> dict:
    return {**data, "team": data["seat"] % 2}


codec = Codec(BidMade | CardPlayed, upcasters)


async def test_domain_events_round_trip_with_their_tag_and_schema_version(pool):
    played, bid = CardPlayed(seat=2, card=17), BidMade(seat=1, contract="sun", team=1)
    await append(pool, "table-1", 0, [codec.encode(played), codec.encode(bid, metadata={"actor": "seat-1"})])
    stored = await read_stream(pool, "table-1")
    assert [(e.event_type, e.schema_version) for e in stored] == [("card_played", 1), ("bid_made", 3)]
    assert [codec.decode(e) for e in stored] == [played, bid]
    assert stored[1].metadata == {"actor": "seat-1"}


async def test_old_events_are_upcast_on_read(pool):
    await append(pool, "table-1", 0, [
        NewEvent(event_type="bid_made", schema_version=1, data={"type": "bid_made", "seat": 3, "bid": "hokum"}),
        NewEvent(event_type="bid_made", schema_version=2, data={"seat": 2, "contract": "sun"}),
    ])
    decoded = [codec.decode(e) for e in await read_stream(pool, "table-1")]
    assert decoded == [BidMade(seat=3, contract="hokum", team=1), BidMade(seat=2, contract="sun", team=0)]


def test_missing_upcaster_and_newer_versions_are_named():
    bare = Codec([BidMade])
    with pytest.raises(CodecError, match="bid_made v1 cannot be read as v3: no upcaster registered"):
        bare.decode_data("bid_made", 1, {"seat": 1, "bid": "sun"})
    with pytest.raises(CodecError, match="bid_made v4 cannot be read as v3: written by newer code"):
        bare.decode_data("bid_made", 4, b'{"seat": 1, "contract": "sun", "team": 1}')
    with pytest.raises(CodecError, match="unknown event type 'game_won'"):
        bare.decode_data("game_won", 1, b"{}")


def test_invalid_stored_data_is_a_codec_error():
    with pytest.raises(CodecError, match="card_played v1"):
        codec.decode_data("card_played", 1, b'{"seat": "north", "card": 3}')


def test_a_codec_refuses_untagged_or_clashing_classes():
    class Untagged(msgspec.Struct, frozen=True):
        x: int

    class Clash(msgspec.Struct, frozen=True, tag="card_played"):
        y: int

    with pytest.raises(CodecError, match="explicit string tag"):
        Codec([Untagged])
    with pytest.raises(CodecError, match="share the tag 'card_played'"):
        Codec([CardPlayed, Clash])
    with pytest.raises(ValueError, match="already registered"):
        upcasters.register("bid_made", 1)(lambda d: d)
