"""Comparing arms, the cross-corpus gap, harness-artefact diagnostics, and run verification."""
