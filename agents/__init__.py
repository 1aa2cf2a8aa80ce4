"""Bots and trained-policy wrappers."""
