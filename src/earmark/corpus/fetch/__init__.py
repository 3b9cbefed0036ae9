"""Fetchers: the only code in earmark that downloads corpora, and only when a user asks."""
