"""Hostile: raises on every call."""


def attention(q, k, v):
    raise RuntimeError("kernel not implemented for this device")
