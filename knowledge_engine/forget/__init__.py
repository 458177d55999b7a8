"""The right to be forgotten, across every place a name can live.

`stores` removes it from the stores, the message log and the index; `coord` reaches the host process
that owns the work not yet in the stores (journal, spill, queue, LLM inbox and parked batches) and
applies `ingest.redact` to it there, so a forget that reports success is final. The redaction of
pending work lives in ingest, below the stages that hold that work, so none of them imports forget.
"""
