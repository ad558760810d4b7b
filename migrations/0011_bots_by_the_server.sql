-- Bot accounts are the server's (services/bots.py): nobody may hold a bot's token, since whoever holds it
-- reads the hand of the bot he seated. The tokens of bot accounts signed up before are revoked.

UPDATE tokens SET revoked_at = now()
 WHERE revoked_at IS NULL AND user_id IN (SELECT user_id FROM users WHERE kind = 'bot');
