"""The PostgreSQL store: one database shared by several engine processes (issue 17).

`connect` opens the pooled connections, `schema` applies the versioned migrations in `migrations/`,
`table` keeps facts and entities (the file store's `RecordTable` contract), `messages` the
conversation memory with full-text search, and `index.pgvector_index` its vectors.
"""
