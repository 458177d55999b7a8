"""Injection, the last stage.

Ranked items rendered into one fenced block (markdown or XML) that stored text cannot break out of.
"""
