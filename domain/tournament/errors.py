"""The one error a championship decision raises: it names the rule that was broken, by id and in words."""

# The stable ids of the championship rules a command can break. The API sends them as the ``rule`` of
# its problem documents, so an id is never renamed; a message can be reworded freely.
CHAMPIONSHIP_RULES = frozenset({
    "registration_closed", "registration_not_open", "already_registered", "team_players", "unknown_team",
    "team_withdrawn", "not_a_substitute", "not_in_team", "seed_mismatch", "draw_commitment",
    "missing_rating", "draw_not_allowed", "no_teams", "draw_first", "wrong_round", "round_undecided",
    "championship_decided", "rounds_remaining", "match_decided", "unknown_match", "nothing_to_play",
    "not_in_match", "no_round", "match_length", "game_target", "unknown_format", "groups_settings",
    "championship_exists", "championship_finished", "duplicate_boards", "duplicate_result",
    "already_proposed", "invitation_declined", "check_in_closed", "bad_extension", "draw_order",
    # the rules that had no id of their own when ids were first published (a bad match result, a game
    # ending level, a command before creation, ...): they keep this one so the API does not change
    "tournament_rule",
})


class ChampionshipRuleError(ValueError):
    """A command broke a championship rule: ``rule`` is its stable id, ``message`` says it as a referee would.

    ``str(err)`` is the message alone. An id outside ``CHAMPIONSHIP_RULES`` is refused at once, so a typo
    fails where it is written rather than reaching clients as a new id. ``extra`` holds facts a client may use
    (when a window closed).
    """

    def __init__(self, rule: str, message: str, **extra):
        if rule not in CHAMPIONSHIP_RULES:
            raise ValueError(f"unknown tournament rule id {rule!r} (message: {message!r})")
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.extra = extra
