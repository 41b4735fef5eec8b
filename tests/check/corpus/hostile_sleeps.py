"""Hostile: never returns in any reasonable time."""

import time


def attention(q, k, v):
    time.sleep(3600)
    return v
