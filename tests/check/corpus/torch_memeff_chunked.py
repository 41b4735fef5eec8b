"""Correct (torch, backward by autograd): memory-efficient attention after Rabe and Staats,
"Self-attention Does Not Need O(n^2) Memory" (arXiv 2112.05682), as the published PyTorch
ports write it (AminRezaei0x443/memory-efficient-attention, xformers' reference): queries in
chunks, keys and values in chunks, each key chunk's exp-weights summed with its own max and
the chunks merged by rescaling to the largest; each chunk's work under
torch.utils.checkpoint, so the backward recomputes it instead of storing the weights.

Expected: forward ok, backward ok.
"""

import torch
import torch._dynamo  # checkpoint's first call imports it (1.5 s): here, not in a timed call
from torch.utils.checkpoint import checkpoint

QUERY_CHUNK = 16
KEY_CHUNK = 8


def _summarize_chunk(q, k, v, scale, mask):
    s = q @ k.transpose(-2, -1) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    m = s.amax(-1, keepdim=True).detach()  # any shift is exact: no gradient through it
    safe = torch.where(torch.isfinite(m), m, torch.zeros_like(m))  # a chunk wholly masked
    e = torch.exp(s - safe)
    return e @ v, e.sum(-1), m.squeeze(-1)  # -inf for that chunk: it weighs 0 in the merge


def _query_chunk(q, k, v, scale, causal, start):
    n = k.shape[-2]
    parts = []
    for j in range(0, n, KEY_CHUNK):
        kj, vj = k[..., j : j + KEY_CHUNK, :], v[..., j : j + KEY_CHUNK, :]
        mask = None
        if causal:
            rows = torch.arange(start, start + q.shape[-2])[:, None]
            mask = torch.arange(j, j + kj.shape[-2])[None, :] <= rows
        parts.append(checkpoint(_summarize_chunk, q, kj, vj, scale, mask, use_reentrant=False))
    values, weights, maxes = (torch.stack(t) for t in zip(*parts, strict=True))
    top = maxes.amax(0)
    shift = torch.exp(maxes - top)  # maxes of -inf (wholly masked chunks) give 0
    values = (values * shift[..., None]).sum(0)
    return values / (weights * shift).sum(0)[..., None]


def attention(q, k, v, causal=False):
    scale = q.shape[-1] ** -0.5
    n = q.shape[-2]
    return torch.cat(
        [
            _query_chunk(q[..., i : i + QUERY_CHUNK, :], k, v, scale, causal, i)
            for i in range(0, n, QUERY_CHUNK)
        ],
        dim=-2,
    )
