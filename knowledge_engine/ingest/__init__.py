"""Ingest, the first stage: how a message gets from a hook (or a transcript) to the extraction worker.

`queue` is the bounded queue with its spill file, `journal` the write-ahead journal that survives a
kill -9, `transcript` reads JSONL transcripts, `backfill` runs one CLI `ingest` of a transcript, `redact`
what a forget does to messages still on their way (the queue, the spill file, the LLM inbox and the
parked batches apply it; forget drives it), `reapply` which messages go through extraction again after a
facts file was recovered from its last good copy.
"""
