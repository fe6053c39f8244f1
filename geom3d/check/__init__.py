"""``geom3d check``: headless batch validation of scenario expectations (SPEC section 6).

Every scenario file named on the command line (files, folders searched recursively for
``*.yaml``, ``*.yml`` and ``*.json``, shell-style globs) is loaded, its scene built, and
exactly what its ``expect`` block asks is evaluated; each asked field is one **check**.

Modules, in the order a run goes through them:

- :mod:`.discover`: PATH arguments -> sorted, deduplicated :class:`ScenarioFile` s;
- :mod:`.expectations`: the per-field comparisons of an ``expect`` block;
- :mod:`.record`: one scenario -> its report record (status pass | fail | error | skip),
  and :class:`BatchResult`;
- :mod:`.executors`: in-process, a process pool (:mod:`.pool`: time limits, dead
  workers) or a Dask cluster (:mod:`.cluster`) (:func:`run_batch`);
- :mod:`.reports`: the ``--json`` document, JUnit XML, GitHub annotations and the
  terminal summary;
The ``geom3d check`` command itself (its options, the run, the reports written) is
:mod:`geom3d.commands.check`. The names below are imported on first use.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "REPORT_FORMAT": "reports",
    "BatchResult": "record",
    "ScenarioFile": "discover",
    "check_scenario": "record",
    "exit_code": "record",
    "expand_paths": "discover",
    "json_report": "reports",
    "junit_report": "reports",
    "run_batch": "executors",
    "summary_text": "reports",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_EXPORTS])
