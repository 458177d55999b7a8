-- A node loads the newest applied-message keys of its agent at start (ORDER BY applied_at DESC LIMIT n):
-- without this index that sorts every key the agent ever applied (one per message).
CREATE INDEX ke_applied_recent ON ke_applied (agent, applied_at DESC);
