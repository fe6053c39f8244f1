"""``geom3d check``: headless batch validation of scenario expectations (SPEC section 6).

Every scenario file named on the command line (files, folders searched recursively for
``*.yaml``, ``*.yml`` and ``*.json``, shell-style globs) is loaded, its scene built, and
exactly what its ``expect`` block asks is evaluated; each asked field is one **check**.

Modules, in the order a run goes through them:

- :mod:`.discover`: PATH arguments -> sorted, deduplicated :class:`ScenarioFile` s;
- :mod:`.expectations`: the per-field comparisons of an ``expect`` block;
- :mod:`.record`: one scenario -> its report record (status pass | fail | error | skip),
  and :class:`BatchResult`;
- :mod:`.executors`: in-process, a process pool, or a Dask cluster (:func:`run_batch`);
- :mod:`.reports`: the ``--json`` document, JUnit XML and the terminal summary;
- :mod:`.command`: the ``geom3d check`` command (:func:`run_check_cli`).
"""

from __future__ import annotations

from .command import run_check_cli
from .discover import ScenarioFile, expand_paths
from .executors import run_batch
from .record import BatchResult, check_scenario, exit_code
from .reports import REPORT_FORMAT, json_report, junit_report, summary_text

__all__ = [
    "REPORT_FORMAT",
    "BatchResult",
    "ScenarioFile",
    "check_scenario",
    "exit_code",
    "expand_paths",
    "json_report",
    "junit_report",
    "run_batch",
    "run_check_cli",
    "summary_text",
]
