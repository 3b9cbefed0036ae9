"""Subcommands of the earmark CLI, one module each."""
