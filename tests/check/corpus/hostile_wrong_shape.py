"""Hostile: returns one number per query instead of one vector."""


def attention(q, k, v):
    return (q @ k.T).sum(axis=-1)
