-- Facts and entities (one row per record, the record as JSON), their tombstones and table metadata.
-- `seq` orders every change of an agent's records so another node can follow them (SELECT ... WHERE
-- seq > last seen); `row_version` is the optimistic lock of a read-modify-write.
CREATE SEQUENCE IF NOT EXISTS ke_change_seq;

CREATE TABLE ke_records (
    agent       text        NOT NULL,
    kind        text        NOT NULL,
    id          text        NOT NULL,
    body        jsonb       NOT NULL,
    updated_at  timestamptz NOT NULL,
    row_version bigint      NOT NULL DEFAULT 1,
    seq         bigint      NOT NULL DEFAULT nextval('ke_change_seq'),
    PRIMARY KEY (agent, kind, id)
);
CREATE INDEX ke_records_follow ON ke_records (agent, kind, seq);

CREATE TABLE ke_tombstones (
    agent      text        NOT NULL,
    kind       text        NOT NULL,
    id         text        NOT NULL,
    deleted_at timestamptz NOT NULL,
    seq        bigint      NOT NULL DEFAULT nextval('ke_change_seq'),
    PRIMARY KEY (agent, kind, id)
);
CREATE INDEX ke_tombstones_follow ON ke_tombstones (agent, kind, seq);

CREATE TABLE ke_meta (
    agent text  NOT NULL,
    kind  text  NOT NULL,
    key   text  NOT NULL,
    value jsonb NOT NULL,
    PRIMARY KEY (agent, kind, key)
);

-- records that failed validation, kept verbatim (never dropped), as the file store's `quarantined`
CREATE TABLE ke_quarantine (
    agent  text  NOT NULL,
    kind   text  NOT NULL,
    body   jsonb NOT NULL,
    digest text  GENERATED ALWAYS AS (md5(body::text)) STORED,
    PRIMARY KEY (agent, kind, digest)
);

-- "message|tiers" keys of extractions applied to the store: a message replayed by any node is applied once
CREATE TABLE ke_applied (
    agent      text        NOT NULL,
    key        text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent, key)
);
