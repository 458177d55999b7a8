"""Scheduled maintenance: decay, prune, compact, Chroma sync, message retention, LLM retry.

`jobs` holds what each job does, `runs` how a run is locked and recorded, `scheduler` when
jobs run (in-process with the plugin, or as a standalone daemon).
"""

from knowledge_engine.maintenance.jobs import JOB_ORDER, JOBS, Cancelled, RunContext, SkipJob
from knowledge_engine.maintenance.runs import read_runs, run_all, run_job

__all__ = ["JOBS", "JOB_ORDER", "Cancelled", "RunContext", "SkipJob", "read_runs", "run_all", "run_job"]
