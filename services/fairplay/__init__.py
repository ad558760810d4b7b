"""Fair-play analysis kept from the log (the application layer of domain/baloot/fairplay.py): the projection
that queues each finished card deal (``projection``), the analyser that values its decisions in a process of
its own (``analyser``), and the reports on a championship's players for its organisers and referees
(``report``). A report is a reason to look at replays, never a sanction."""
