"""Injection: ranked items rendered into one fenced block (markdown or XML) that stored text cannot
break out of.

It sits below retrieve, not after it: the budgets are counted in rendered characters, so ranking
measures items with the renderer (`format.render_item`, `rank.block_overhead`) and the retriever
renders the block it returns to the hook. The renderer depends only on the ground floor (`model`);
`budget` (whole-item budgets) and `lightrag_context` (LightRAG's context parsed and recomposed within a
budget) live here because the renderer needs them and the LightRAG source parses with the latter.
"""
