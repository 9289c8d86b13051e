"""Distributed jobs: every rank's trace read in parallel, on one clock, with its numbers by Holistic Trace
Analysis's definitions and its critical path (docs/distributed-jobs.md). Above ``io`` (the reader) and
``sweep`` (the executors), below the figures and views that draw a job."""

from ._load import JobReadWarning
from .job import Job, load_job

__all__ = ["Job", "JobReadWarning", "load_job"]
