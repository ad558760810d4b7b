"""Commands (imperative) and events (past tense) of a deal and a game, as frozen tagged msgspec Structs.

Tags are stable names stored in the log; never derive them from Python class paths. Every event class
carries a ``schema_version`` so that old stored events can be upcast on read.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from domain.baloot.profiles import RuleProfile
from domain.events import Event, RevealSeed, TableMode

BidValue = Literal["pass", "hokum", "sun", "ashkal", "wala", "before_you", "confirm", "kawesh"]
DoubleValue = Literal["double", "three", "four", "gahwa", "pass"]

# ---------------------------------------------------------------- values


class Contract(msgspec.Struct, frozen=True):
    kind: Literal["hokum", "sun"]
    suit: int | None          # trump suit in Hokum
    buyer: int                # the seat holding the contract (المشتري); for Ashkal the caller
    ashkal: bool = False
    multiplier: int = 1
    gahwa: bool = False
    closed: bool = False      # closed game (مقفول), Hokum only


class ProjectScore(msgspec.Struct, frozen=True):
    seat: int
    kind: str                 # sira, fifty, hundred, four_hundred, four_of_a_kind ... (see projects.py)
    cards: tuple[int, ...]
    value: int                # GP (game-point scoring) or card points (card-point scoring)
    raw: int                  # raw value for tie breaks (sira 20, fifty 50, ...)


class QaydVerdict(msgspec.Struct, frozen=True):
    caller: int
    index: int                # the accused action's index in the deal
    accused: int              # the seat that made the accused action
    proven: bool
    rule: str | None          # the rule broken, when proven
    message: str


class DealResult(msgspec.Struct, frozen=True, kw_only=True):
    """What a deal adds to the game; every pair is [team of seats 0+2, team of seats 1+3]."""

    card_points: tuple[int, int]
    game_points: tuple[int, int]
    tricks: tuple[int, int] = (0, 0)
    card_gp: tuple[int, int] = (0, 0)          # card points converted (§6.3 step 3)
    project_gp: tuple[int, int] = (0, 0)       # awarded project value per team (§6.2)
    projects: tuple[ProjectScore, ...] = ()    # the awarded projects
    baloot: tuple[int, int] = (0, 0)           # Baloot value credited per team
    kaboot: bool = False
    failed: bool = False
    split: bool = False
    void: bool = False
    winner: int | None = None                  # team that took the deal (failure, doubling, Kaboot, Qayd)
    gahwa_winner: int | None = None            # Gahwa: this team wins the game at once
    held: int = 0                              # card-point scoring: points held by a dispute (litige)
    qayd: QaydVerdict | None = None
    notes: tuple[str, ...] = ()                # the steps of the decision, in words
    awarded: str | None = None                 # a referee awarded the deal to ``winner``: his reason (last: the
                                               # stored form may be positional)


# ---------------------------------------------------------------- commands


class StartDeal(msgspec.Struct, frozen=True, tag="start_deal", kw_only=True):
    dealer: int
    profile: RuleProfile = RuleProfile()
    table_mode: TableMode = msgspec.field(default="strict", name="table")
    scores_before: tuple[int, int] = (0, 0)
    seed: str | None = None                    # deck from seed (shuffle.py), commitment published
    deck: tuple[int, ...] | None = None        # or an explicit deck order (hand records)


class Bid(msgspec.Struct, frozen=True, tag="bid"):
    seat: int
    bid: BidValue
    suit: int | None = None


class Double(msgspec.Struct, frozen=True, tag="double"):
    seat: int
    call: DoubleValue
    closed: bool | None = None


class Declare(msgspec.Struct, frozen=True, tag="declare"):
    seat: int
    projects: tuple[tuple[int, ...], ...]


class PlayCard(msgspec.Struct, frozen=True, tag="play_card"):
    seat: int
    card: int
    baloot: bool = False


class ClaimSawa(msgspec.Struct, frozen=True, tag="claim_sawa"):
    seat: int


class CallQayd(msgspec.Struct, frozen=True, tag="call_qayd"):
    seat: int
    index: int


class RecordResult(msgspec.Struct, frozen=True, tag="record_result"):
    """Recorded tables: close the review after the last trick; Qayd is no longer possible."""


class AwardDeal(msgspec.Struct, frozen=True, tag="award_deal", kw_only=True):
    """A referee's ruling: the deal being played ends now, taken whole by ``team`` (the full deal value and
    its own projects, as a proven Qayd gives), for ``reason``."""

    team: int
    reason: str


class StartGame(msgspec.Struct, frozen=True, tag="start_game", kw_only=True):
    first_dealer: int
    profile: RuleProfile = RuleProfile()
    table_mode: TableMode = msgspec.field(default="strict", name="table")


class DealNext(msgspec.Struct, frozen=True, tag="deal_next", kw_only=True):
    """Start the game's next deal; dealer, profile and scores come from the game. ``hold_seed``: the deal
    just ended keeps its seed back (a board other tables still play); else it must have been revealed."""

    seed: str | None = None
    deck: tuple[int, ...] | None = None
    hold_seed: bool = False


class RevealHeldSeeds(msgspec.Struct, frozen=True, tag="reveal_held_seeds", kw_only=True):
    """Reveal the seeds this game held back, by deal number, once every table of its boards is done."""

    seeds: tuple[tuple[int, str], ...]


DealCommand = (StartDeal | Bid | Double | Declare | PlayCard | ClaimSawa | CallQayd | RecordResult | AwardDeal
               | RevealSeed)
SeatCommand = Bid | Double | Declare | PlayCard | ClaimSawa | CallQayd
class AnnulDeal(msgspec.Struct, frozen=True, tag="annul_deal", kw_only=True):
    """A referee's ruling: the current deal counts for nothing; ``replay`` deals it again by the same dealer."""

    reason: str
    replay: bool = False


class ForfeitGame(msgspec.Struct, frozen=True, tag="forfeit_game", kw_only=True):
    """A team loses the game without finishing it (ran out of time, walked away)."""

    team: int
    reason: str


class EndGame(msgspec.Struct, frozen=True, tag="end_game", kw_only=True):
    """A referee's ruling: the game ends now, won by ``winner`` (a team) or by nobody, for ``reason``."""

    reason: str
    winner: int | None = None


class AbandonGame(msgspec.Struct, frozen=True, tag="abandon_game", kw_only=True):
    """The table gives up on a game nobody plays: ``teams`` stopped playing (both: nobody wins)."""

    teams: tuple[int, ...]
    reason: str


Command = DealCommand | StartGame | DealNext | AnnulDeal | ForfeitGame | EndGame | AbandonGame

# ---------------------------------------------------------------- events


class DealStarted(Event, frozen=True, tag="deal_started", kw_only=True):
    """A deal begins. Dealt from a seed, it carries only the seed's commitment: the cards follow in the
    private ``cards_dealt``, which only the holder of the seed can re-derive, so the stored log shows no
    hand until the seed is revealed. An explicit deck (hand records, tests) is carried as it is.

    Version 2: ``deck`` is None for seeded deals (version 1 stored it; v1 events read unchanged)."""

    schema_version: ClassVar[int] = 2
    profile: RuleProfile
    table_mode: TableMode = msgspec.field(name="table")
    dealer: int
    scores_before: tuple[int, int]
    deck: tuple[int, ...] | None = None        # explicit decks only
    commitment: str | None = None              # sha256 of the seed (shuffle.py), None for explicit decks


class CardsDealt(Event, frozen=True, tag="cards_dealt"):
    """The deck of a seeded deal, derived from its seed by the server: private, never stored (the log holds
    the commitment, and the seed once the deal has ended)."""

    private: ClassVar[bool] = True
    deck: tuple[int, ...]


class BidMade(Event, frozen=True, tag="bid_made"):
    seat: int
    bid: BidValue
    suit: int | None = None


class ContractFixed(Event, frozen=True, tag="contract_fixed"):
    kind: Literal["hokum", "sun"]
    suit: int | None
    buyer: int
    ashkal: bool = False


class DoubleCalled(Event, frozen=True, tag="double_called"):
    seat: int
    call: DoubleValue
    closed: bool | None = None


class ProjectsDeclared(Event, frozen=True, tag="projects_declared"):
    seat: int
    projects: tuple[tuple[int, ...], ...]


class CardPlayed(Event, frozen=True, tag="card_played"):
    seat: int
    card: int
    baloot: bool = False
    offence: str | None = None                 # recorded tables: the rule this play broke, if any


class SawaClaimed(Event, frozen=True, tag="sawa_claimed"):
    seat: int
    valid: bool


class QaydCalled(Event, frozen=True, tag="qayd_called"):
    verdict: QaydVerdict


class DealVoided(Event, frozen=True, tag="deal_voided"):
    reason: Literal["kawesh", "all_wala"]
    seat: int | None = None


class DealScored(Event, frozen=True, tag="deal_scored"):
    result: DealResult


class SeedRevealed(Event, frozen=True, tag="seed_revealed", omit_defaults=True):
    """A deal's seed, revealed once it has ended: anyone can now derive its deck and check the commitment.
    ``deal_no`` names an earlier deal of the game whose seed was held back (shared boards, revealed when every
    table of the boards is done); absent, the deal being played."""

    seed: str
    deal_no: int | None = None


class DealAnnulled(Event, frozen=True, tag="deal_annulled", kw_only=True):
    deal_no: int
    reason: str
    replay: bool
    game_points: tuple[int, int] = (0, 0)      # what the annulled deal had added, now taken back


class GameStarted(Event, frozen=True, tag="game_started", kw_only=True):
    profile: RuleProfile
    table_mode: TableMode = msgspec.field(name="table")
    first_dealer: int


class GameEnded(Event, frozen=True, tag="game_ended"):
    """The game is over. ``winner`` is None when nobody wins it (both teams abandoned it, or a referee
    ended it without a result); ``note`` is the referee's or the table's reason in words."""

    winner: int | None
    scores: tuple[int, int]
    reason: Literal["target", "gahwa", "forfeit", "abandoned", "referee", "deals"] = "target"
    note: str = ""


DealEvent = (
    DealStarted | BidMade | ContractFixed | DoubleCalled | ProjectsDeclared | CardPlayed | SawaClaimed
    | QaydCalled | DealVoided | DealScored | SeedRevealed | CardsDealt
)
GameEvent = DealEvent | DealAnnulled | GameStarted | GameEnded
# The events that are stored (``cards_dealt`` is private: the server re-derives it from the seed).
EVENT_TYPES: tuple[type, ...] = (
    DealStarted, BidMade, ContractFixed, DoubleCalled, ProjectsDeclared, CardPlayed, SawaClaimed,
    QaydCalled, DealVoided, DealScored, SeedRevealed, DealAnnulled, GameStarted, GameEnded,
)
# Actions are the events a seat causes; a deal's action index counts them (Qayd names one by index).
ACTION_EVENTS = (BidMade, DoubleCalled, ProjectsDeclared, CardPlayed, SawaClaimed, QaydCalled)
