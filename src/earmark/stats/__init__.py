"""Statistics over error counts: clip bootstrap CIs, paired comparisons, paired tests.

Pure numpy, no I/O. The only process state is what changes no number: the Poisson
generator's table cache and a forked worker's share of the cores. Every bootstrap
recomputes the corpus-level (micro) statistic from resampled *counts*; see
`earmark.stats.resampling` for the exact algorithm.
Each name is imported from the module it lives in (`earmark.stats.bootstrap`,
`.paired_tests`, `.delta_method`, `.settings`): the package itself imports nothing, so
reading `earmark.stats.settings` (every command's flags do) does not import numpy.
"""
