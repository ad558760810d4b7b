"""The one error a tournament decision raises: it names the rule that was broken."""


class TournamentRuleError(ValueError):
    """A command broke a championship rule; the message says which, as a referee would."""
