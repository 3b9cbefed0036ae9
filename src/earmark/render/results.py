"""The JSON Schema of `results.json` (`earmark.results/1`), shipped with the package.

The schema is frozen: a change of meaning is a new schema version, never an edit. Reading
and writing the results file and its predictions live in `earmark.rundir.results_file`
(the one module that knows a folder's files).
"""

from __future__ import annotations

import json
from importlib import resources

from earmark.results.codec import JSONValue


def results_schema() -> dict[str, JSONValue]:
    """The JSON Schema of `results.json` (draft 2020-12)."""
    text = resources.files("earmark.render").joinpath("schema/results-1.json").read_text("utf-8")
    loaded: dict[str, JSONValue] = json.loads(text)
    return loaded
