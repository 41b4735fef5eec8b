"""Buggy (torch, custom backward), a shipped bug: FlashAttention-2 as a CS336 (Stanford,
spring 2025) assignment asks for it, an autograd.Function on (batch, n, d) tensors with query
and key tiles of 16, the online softmax in the forward and the log-sum-exp L saved; the
backward made again from L in one piece (D = rowsum(O * dO), P = exp(S - L), dS = P * (dP -
D)), with `is_causal` masking the scores by -1e6 in the forward and by -inf in the backward.

As damek/cs336-assignment2-systems shipped it at the commit below, the backward builds its
causal mask from `torch.arange(Q.shape[0])`: the batch size, not the length. With one
sequence the mask is a single False, the backward masks nothing, and P = exp(S - L) gives the
future keys weights the forward never used: gradient reaches them. The forward is right,
causal or not. The next commit, 121b6694cd7b0e32458c5abb30e51b547b51123c ("fix causal
attention index in FlashAttention to use correct shape"), builds it from `S.shape[-2]`. Its
forward was a Triton kernel beside a plain-PyTorch twin (`FlashAttentionPytorch`); here the
forward is that twin's tiled loop, with the causal mask the Triton kernel had, so the whole
Function is plain PyTorch.

after: damek/cs336-assignment2-systems cs336_systems/flashattention.py
commit: 045fed177ff9309fbf9d2db9587e700abba83f94
licence: MIT (the original)
target: FlashAttention.apply
expected: buggy backward-causal-leak
layout: bnd
"""

import math

import torch
from torch import einsum

B_Q = B_K = 16  # tile sizes
MASKED = -1e6  # added to the scores of future keys in the forward


class FlashAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, Q, K, V, is_causal=False):
        n_q, n_k, d = Q.shape[-2], K.shape[-2], Q.shape[-1]
        sqrt_d = math.sqrt(d)
        O = torch.empty_like(Q)  # noqa: E741 (the assignment's names)
        L = torch.empty(Q.shape[:-1], dtype=Q.dtype)
        for i0 in range(0, n_q, B_Q):
            Q_i = Q[:, i0 : i0 + B_Q, :]
            rows = torch.arange(i0, i0 + Q_i.shape[-2])
            O_i = torch.zeros_like(Q_i)
            l_i = torch.zeros(Q_i.shape[:-1], dtype=Q.dtype)
            m_i = torch.full(Q_i.shape[:-1], float("-inf"), dtype=Q.dtype)
            for j0 in range(0, n_k, B_K):
                K_j, V_j = K[:, j0 : j0 + B_K, :], V[:, j0 : j0 + B_K, :]
                S = einsum("...id,...jd->...ij", Q_i, K_j) / sqrt_d
                if is_causal:
                    cols = torch.arange(j0, j0 + K_j.shape[-2])
                    S = S + MASKED * (cols[None, :] > rows[:, None])
                m_new = torch.maximum(m_i, S.max(dim=-1).values)
                P_tilde = torch.exp(S - m_new[..., None])
                rescale = torch.exp(m_i - m_new)
                l_i = rescale * l_i + P_tilde.sum(dim=-1)
                O_i = rescale[..., None] * O_i + einsum("...ij,...jd->...id", P_tilde, V_j)
                m_i = m_new
            O[:, i0 : i0 + B_Q, :] = O_i / l_i[..., None]
            L[:, i0 : i0 + B_Q] = m_i + torch.log(l_i)
        ctx.save_for_backward(Q, K, V, L, O)
        ctx.is_causal, ctx.sqrt_d = is_causal, sqrt_d
        return O

    @staticmethod
    def backward(ctx, dO):
        Q, K, V, L, O = ctx.saved_tensors  # noqa: E741
        D = (O * dO).sum(dim=-1, keepdim=True)
        S = einsum("...id,...jd->...ij", Q, K) / ctx.sqrt_d
        if ctx.is_causal:
            i = torch.arange(Q.shape[0])  # the bug: Q's first axis is the batch
            mask = i[None, :] > i[:, None]
            S = S.masked_fill(mask, float("-inf"))
        P = torch.exp(S - L[..., None])
        dV = einsum("...ij,...id->...jd", P, dO)
        dP = einsum("...id,...jd->...ij", dO, V)
        dS = P * (dP - D)
        dQ = einsum("...ij,...jd->...id", dS, K) / ctx.sqrt_d
        dK = einsum("...ij,...id->...jd", dS, Q) / ctx.sqrt_d
        return dQ, dK, dV, None
