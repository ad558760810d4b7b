"""`baloot tournament simulate`: a whole championship in memory, with simulated or engine-played games."""

from __future__ import annotations

import argparse
import sys

import msgspec

from domain.baloot.bots import LEVELS

FORMAT_ALIASES = {
    "single": "single_elimination", "single_elimination": "single_elimination", "knockout": "single_elimination",
    "double": "double_elimination", "double_elimination": "double_elimination",
    "groups": "groups_knockout", "groups_knockout": "groups_knockout",
    "swiss": "swiss",
    "round_robin": "round_robin", "round-robin": "round_robin", "league": "round_robin",
    "duplicate": "duplicate",
}


def register(subparsers) -> None:
    parser = subparsers.add_parser("tournament", help="championships: simulate a whole tournament")
    commands = parser.add_subparsers(dest="tournament_command", required=True)
    sim = commands.add_parser("simulate", help="run a championship in memory with simulated results")
    sim.add_argument("--teams", type=int, required=True, help="number of teams of two")
    sim.add_argument("--format", required=True, choices=sorted(FORMAT_ALIASES),
                     help="single, double, groups, swiss, round-robin or duplicate")
    sim.add_argument("--seed", default="1", help="draw and results seed (published as sha256 first)")
    sim.add_argument("--play", action="store_true", help="play every game with the rules engine")
    sim.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    sim.add_argument("--match-games", type=int, default=1, help="best of N games per match")
    sim.add_argument("--swiss-rounds", type=int, default=0, help="Swiss rounds (default ceil(log2 N))")
    sim.add_argument("--group-size", type=int, default=16)
    sim.add_argument("--qualifiers", type=int, default=2, help="qualifiers per group")
    sim.add_argument("--boards", type=int, default=4, help="duplicate: boards per match (two tables each)")
    sim.add_argument("--no-reset", action="store_true", help="double elimination: no grand final reset")
    sim.add_argument("--seeding", choices=("draw", "rating"), default="draw")
    sim.add_argument("--profile", default="saudi", help="rule profile for --play")
    sim.add_argument("--policy", default="random", choices=("random", "lowest", *LEVELS),
                     help="who plays the games with --play: random legal actions or a bot level")
    sim.set_defaults(func=simulate)


def _engine(profile: str, policy: str = "random"):
    from domain.baloot.simulate import play_game  # the rules engine, only when games are really played

    return lambda seed: play_game(seed, profile, policy)


def _boards(profile: str, policy: str):
    """Duplicate boards played by the engine: each team's two players are one level's bot that slips (a
    random legal action) 15% of the time, seeded by team, board set and board."""
    from domain.baloot.daily_play import SimulatedPlayer, play_seats
    from domain.baloot.profiles import profile_named

    level = policy if policy in LEVELS else "normal"
    rules = profile_named(profile)

    def play(board, first: str, second: str) -> tuple[int, int]:
        players = {t: SimulatedPlayer(level, f"{t}/{board.set_id}/{board.number}") for t in (first, second)}
        return play_seats(board, [players[first], players[second], players[first], players[second]], rules)

    return play


def simulate(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from domain.tournament import Settings, ChampionshipRuleError
    from domain.tournament.formats import planned_rounds
    from domain.tournament.simulation import Simulation, expected_matches

    err = Console(stderr=True)
    if args.teams < 1:
        err.print("[red]--teams must be at least 1[/red]")
        return 2
    fmt = FORMAT_ALIASES[args.format]
    settings = Settings(
        name=f"simulated {fmt.replace('_', ' ')}", format=fmt, profile=args.profile,
        match_games=args.match_games, seeding=args.seeding, swiss_rounds=args.swiss_rounds,
        group_size=args.group_size, qualifiers_per_group=args.qualifiers,
        grand_final_reset=not args.no_reset, table_mode="recorded" if args.play else "strict",
        duplicate_boards=args.boards)
    try:
        game_scores = _engine(args.profile, args.policy) if args.play else None
    except ImportError as error:
        err.print(f"[red]--play needs the rules engine's domain.baloot.simulate.play_game: {error}[/red]")
        return 2
    total = expected_matches(fmt, args.teams, planned_rounds(fmt, args.teams, args.swiss_rounds))
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=args.json) as progress:
        task = progress.add_task(f"{args.teams} teams, {fmt.replace('_', ' ')}", total=total)
        sim = Simulation(settings, args.teams, args.seed, game_scores=game_scores,
                         on_match=lambda _m: progress.advance(task),
                         board_scores=_boards(args.profile, args.policy) if args.play and fmt == "duplicate" else None)
        try:
            state = sim.run()
        except ChampionshipRuleError as error:
            err.print(f"[red]rule broken: {error}[/red]")
            return 1
        progress.update(task, total=progress.tasks[0].completed)
    if args.json:
        sys.stdout.write(msgspec.json.encode(document(state, args.seed)).decode() + "\n")
    else:
        _print(state)
    return 0


def document(state, seed: str) -> dict:
    """The championship as one JSON-ready document: every match and the final ranking."""
    matches = []
    for round_ in state.rounds:
        for m, outcome in zip(round_.matches, round_.outcomes):
            entry = {
                "match": m.match_id, "round": m.round, "stage": m.stage,
                "team_a": m.team_a, "team_b": m.team_b, "bye": m.note == "bye",
                "winner": outcome.winner, "outcome": outcome.kind,
                "forfeit": outcome.kind in ("forfeit", "double_forfeit", "walkover"),
            }
            if outcome.result is not None:
                entry["games"] = [outcome.result.team_a_games, outcome.result.team_b_games]
                entry["scores"] = [list(s) for s in outcome.result.final_scores]
            matches.append(entry)
    s = state.settings
    return {
        "championship": {"id": state.championship_id, "name": s.name, "format": s.format,
                         "teams": len(state.team_order), "match_games": s.match_games,
                         "game_target": s.game_target, "seed": seed, "commitment": state.commitment,
                         "draw": list(state.draw.order) if state.draw else []},
        "matches": matches,
        "champion": state.champion,
        "ranking": [{"rank": r.rank, "team": r.team_id, "reached": r.reached} for r in state.ranking],
    }


def _print(state) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console()
    rounds = state.rounds
    shown = rounds[-4:] if sum(len(r.matches) for r in rounds) > 64 else rounds
    if state.settings.format in ("swiss", "round_robin"):
        table = Table(title=f"{state.settings.name}: standings")
        for col in ("rank", "team", "record"):
            table.add_column(col)
        for r in state.ranking[:32]:
            table.add_row(str(r.rank), r.team_id, r.reached)
        out.print(table)
    else:
        if len(shown) < len(rounds):
            out.print(f"[dim]{len(rounds) - len(shown)} earlier rounds not shown[/dim]")
        for round_ in shown:
            table = Table(title=f"round {round_.number}")
            for col in ("match", "stage", "team A", "team B", "winner", "how"):
                table.add_column(col)
            for m, o in list(zip(round_.matches, round_.outcomes))[:32]:
                how = o.kind if o.result is None else f"{o.result.team_a_points}-{o.result.team_b_points}"
                table.add_row(m.match_id, m.stage, m.team_a or "-", m.team_b or "bye", o.winner or "-", how)
            out.print(table)
    out.print(f"[bold green]champion: {state.champion or 'none'}[/bold green]")
