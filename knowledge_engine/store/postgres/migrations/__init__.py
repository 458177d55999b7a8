"""Bundled SQL migrations (`NNNN_name.sql`); see `store.postgres.schema`."""
