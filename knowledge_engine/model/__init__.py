"""The ground floor: records and result types every pipeline stage shares.

Messages, entities, facts and their evidence (`records`), what an extractor returns (`extraction`),
what a retrieval source returns (`retrieval`) and the one vocabulary of single-valued relations
(`predicates`). Nothing here imports another part of the package, so every stage imports down to it
and no import runs back up the pipeline.
"""
