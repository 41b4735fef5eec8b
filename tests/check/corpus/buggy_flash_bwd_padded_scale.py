"""Buggy (torch, backward): a FlashAttention-2 port in pure PyTorch whose backward takes the
softmax scale from the head size padded to a multiple of 8 (the size its tiles are laid out
in), while the forward uses the true one. Shipped in tile-ai/tilelang-ascend and fixed by pull
request #1670 ("Non-16-aligned D_qk returns wrong gradients": `run_bwd` used the padded
dim_qk_padded, e.g. 144, for sm_scale instead of the logical D_qk, 129). Right whenever d is
already a multiple of 8, as every benchmark's is.

Expected: forward ok, backward `backward-wrong-output`.
"""

import torch

BLOCK = 8


class FlashAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, is_causal=False):
        n, d = q.shape[-2], q.shape[-1]
        scale = d**-0.5
        o = torch.empty_like(q)
        lse = q.new_empty(q.shape[:-1])
        for i in range(0, n, BLOCK):
            qi = q[..., i : i + BLOCK, :]
            rows = torch.arange(i, i + qi.shape[-2])
            m = qi.new_full(qi.shape[:-1], float("-inf"))
            denom = qi.new_zeros(qi.shape[:-1])
            acc = torch.zeros_like(qi)
            for j in range(0, min(n, i + BLOCK) if is_causal else n, BLOCK):
                kj, vj = k[..., j : j + BLOCK, :], v[..., j : j + BLOCK, :]
                s = qi @ kj.transpose(-2, -1) * scale
                if is_causal:
                    cols = torch.arange(j, j + kj.shape[-2])
                    s = s.masked_fill(cols[None, :] > rows[:, None], float("-inf"))
                m_new = torch.maximum(m, s.amax(-1))
                p = torch.exp(s - m_new[..., None])
                alpha = torch.exp(m - m_new)
                denom = denom * alpha + p.sum(-1)
                acc = acc * alpha[..., None] + p @ vj
                m = m_new
            o[..., i : i + BLOCK, :] = acc / denom[..., None]
            lse[..., i : i + BLOCK] = m + torch.log(denom)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.is_causal = is_causal
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        n, d = q.shape[-2], q.shape[-1]
        padded = -(-d // 8) * 8  # the tiles' head size
        scale = padded**-0.5  # the bug: the true d's scale is d**-0.5
        delta = (do * o).sum(-1)
        dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        for j in range(0, n, BLOCK):
            kj, vj = k[..., j : j + BLOCK, :], v[..., j : j + BLOCK, :]
            cols = torch.arange(j, j + kj.shape[-2])
            for i in range(j - j % BLOCK if ctx.is_causal else 0, n, BLOCK):
                qi, doi = q[..., i : i + BLOCK, :], do[..., i : i + BLOCK, :]
                rows = torch.arange(i, i + qi.shape[-2])
                s = qi @ kj.transpose(-2, -1) * scale
                if ctx.is_causal:
                    s = s.masked_fill(cols[None, :] > rows[:, None], float("-inf"))
                p = torch.exp(s - lse[..., i : i + BLOCK, None])
                dv[..., j : j + BLOCK, :] += p.transpose(-2, -1) @ doi
                dp = doi @ vj.transpose(-2, -1)
                ds = p * (dp - delta[..., i : i + BLOCK, None])
                dq[..., i : i + BLOCK, :] += ds @ kj * scale
                dk[..., j : j + BLOCK, :] += ds.transpose(-2, -1) @ qi * scale
        return dq, dk, dv, None


def flash_attention(q, k, v, is_causal=False):
    return FlashAttention.apply(q, k, v, is_causal)
