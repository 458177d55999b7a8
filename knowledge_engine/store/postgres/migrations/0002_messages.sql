-- Conversation memory (the file store's messages.sqlite3): one row per (agent, message id), so a
-- message replayed by two nodes is stored once. `seq` is the arrival order (ties of equal event time).
--
-- Keyword search: `tsv` is generated from the text, so it can never drift from it (a redaction or a
-- delete changes both in one statement). ke_fold() removes diacritics (NFKD, combining marks
-- dropped) like FTS5's `remove_diacritics 2`; 'english' stems like FTS5's `porter` tokenizer.
-- NUL cannot be stored in a PostgreSQL text: the engine stores it as a space and keeps the
-- positions in `nul_at` to give the exact text back.
CREATE FUNCTION ke_fold(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT regexp_replace(normalize(t, NFKD),
                                '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]', '', 'g') $$;

CREATE TABLE ke_messages (
    agent    text        NOT NULL,
    id       text        NOT NULL,
    seq      bigint      GENERATED ALWAYS AS IDENTITY,
    session  text,
    role     text        NOT NULL,
    speaker  text,
    agent_id text,
    ts       timestamptz NOT NULL,
    text     text        NOT NULL,
    nul_at   integer[],
    tsv      tsvector    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, ke_fold(text))) STORED,
    PRIMARY KEY (agent, id)
);
CREATE UNIQUE INDEX ke_messages_seq ON ke_messages (agent, seq);
CREATE INDEX ke_messages_ts ON ke_messages (agent, ts, seq);
CREATE INDEX ke_messages_session ON ke_messages (agent, session, ts);
CREATE INDEX ke_messages_tsv ON ke_messages USING gin (tsv);
