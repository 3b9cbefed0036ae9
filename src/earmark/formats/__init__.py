"""Input formats: saved hypotheses and references read into scoring rows, one module each.

As meeteval's `io/`: `structured` (JSONL, CSV, TSV) with `fields`, `kaldi` (`id words`),
`lines` (one sentence a line), `trn`, `stm`, `ctm`, `segments` (timed speaker segments);
`rows` holds the row they all produce, `pairs` chooses a reader for a pair of files.
Below scoring: nothing here imports `scoring`, `corpus` or `engines`.
"""
