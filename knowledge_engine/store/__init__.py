"""The knowledge store of one workspace.

Facts and entities in atomic JSON files (lock + merge across processes) and the SQLite message log.
"""
