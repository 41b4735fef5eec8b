"""Hostile: NAME is not a function."""

attention = 42
