"""Corpora: the manifest model (`model`), reading rows and the licence gate (`manifest`),
checking a whole manifest (`validation`), audio loading (`audio`), selection rules
(`selection`), writing (`writer`), importers (`sources`), fetchers (`fetch`) and the bundled
demo corpus (`demo`). Import each name from the module that defines it.
"""
