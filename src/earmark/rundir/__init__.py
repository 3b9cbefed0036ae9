"""The run directory: the only code that knows an output folder's file names and formats.

`layout` names the files; `predictions` reads predictions.jsonl (a torn last line
skipped), `bounds` is the one row bound and encoding its writers and readers share;
`results_file` writes and reads results.json beside it; `provenance` reads
provenance.json and judges verifiability; `folder.RunFolder` opens a whole folder and
returns typed objects from `earmark.results`. Nothing is imported here, so writing a
score folder (`earmark score`) loads only the modules it uses.
"""
