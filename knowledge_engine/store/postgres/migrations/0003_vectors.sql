-- The vector arm of the postgres backend (message and fact vectors, in place of Chroma).
-- Vectors live in one table per dimension, ke_vectors_<D> (created on demand by
-- index/pgvector_index.py, never altered: a halfvec(D) column cannot change D under live rows).
-- ke_vector_tables records which tables exist; ke_vector_spaces records, per agent, the embedding
-- model and D its vectors were made with (a node with another model is refused, as Chroma's
-- collection metadata does) and a generation that a rebuild bumps.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE ke_vector_tables (
    dimensions integer     PRIMARY KEY CHECK (dimensions BETWEEN 1 AND 4000),
    table_name text        NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ke_vector_spaces (
    agent      text        PRIMARY KEY,
    model      text        NOT NULL,
    dimensions integer     NOT NULL REFERENCES ke_vector_tables (dimensions),
    generation bigint      NOT NULL DEFAULT 1,
    updated_at timestamptz NOT NULL DEFAULT now()
);
