-- Parked LLM batches (the file store's llm-pending/batch-*.json): one row per (agent, batch id), so
-- a batch parked by a node that dies for good is sent by another. A node claims a batch by setting
-- claimed_by / claimed_until (a lease) in one UPDATE; a claim whose lease ended is free again.
-- `body` holds message text, like ke_messages: forget rewrites it and VACUUM FULLs the table.
CREATE TABLE ke_parked (
    agent         text        NOT NULL,
    id            text        NOT NULL,
    body          text        NOT NULL,  -- the JSON of the batch (as the file holds it)
    state         text        NOT NULL DEFAULT 'waiting',  -- waiting | failed | corrupt
    claimed_by    text,
    claimed_until timestamptz,
    parked_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent, id)
);
CREATE INDEX ke_parked_waiting ON ke_parked (agent, id) WHERE state = 'waiting';
