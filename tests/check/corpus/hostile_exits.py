"""Hostile: kills the interpreter on the first call."""

import os


def attention(q, k, v):
    os._exit(3)
