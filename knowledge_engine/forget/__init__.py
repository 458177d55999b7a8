"""The right to be forgotten, across every place a name can live.

`stores` removes it from the stores, the message log and the index; `pending` from work not yet in the
stores (journal, spill, queue, LLM inbox and parked batches); `coord` reaches the host process that
owns that work, so a forget that reports success is final.
"""
