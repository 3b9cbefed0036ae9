"""One typed function per verb, the layer under both the `earmark` command and
`import earmark` (which names them lazily).

Each verb takes keyword arguments spelled as its subcommand's flags (`--bootstrap B` is
`bootstrap=B`), groups them into the option objects of the library it calls, and
returns typed results built in memory (`earmark.results.Results`, `Comparison`,
`Decision`, `VerifyReport`, ...); files are written only where an output folder is
given. Nothing here prints, builds an argv or imports `argparse`: the CLI parses flags,
calls these and prints (a test pins both the parity and the imports).

Modules are named for what they do, never for a verb, so importing one cannot hide a
verb of the same name: `pairs` (strings), `scoring` (`score_file`), `running` (`run`,
`plan_freeze`, `plan_show`), `comparing` (`compare`, `gap`), `checking` (`verify`),
`rendering` (`report`, `leaderboard`), `deciding` (`decide`), `postprocessing`
(`postprocess`), `speakers` (`multispeaker`), `manifests` (the `manifest` verbs),
`corpora` (`import_corpus`, `fetch`, `demo`), `example_files` (`examples`) and `values`
(the range checks the CLI's argument types share).
"""
