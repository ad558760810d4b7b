-- Tables of shared boards (a daily board, a duplicate table: table_opened.boards) are marked in the table
-- index: they are left out of the public table list, and the tables whose held seeds are still to be
-- revealed once their boards are done are found by an index scan, not by reading every stream.

ALTER TABLE tables_index ADD COLUMN shared boolean NOT NULL DEFAULT false;
UPDATE tables_index SET shared = true WHERE table_id LIKE 'daily.%' OR table_id LIKE 'dup.%';
CREATE INDEX tables_index_shared_finished ON tables_index (championship_id) WHERE shared AND status = 'finished';
