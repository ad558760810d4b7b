"""The referee's desk, without HTTP: the calls of the tables a referee may rule on (his queue) and one deal
step by step with the engine's verdict on each accusation (``services.referee.desk``)."""
