"""Hostile: calls sys.exit() on every call."""

import sys


def attention(q, k, v):
    sys.exit("bye")
