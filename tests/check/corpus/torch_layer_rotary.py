"""Layers written as the LLaMA family writes them, where the model hands each call its rotary
embeddings and the layer turns q and k by them.

- `meta`: maps `wq`, `wk`, `wv`, `wo`; the angles as complex numbers `freqs_cis`, (n, d / 2),
  applied to pairs of features viewed as complex; `start_pos` saying where the call writes its
  keys and values into a cache; an additive `mask` handed in (None: every position sees all).
- `meta_by_dim`: the same, dividing the scores by the head size instead of its square root.
- `fast`: as gpt-fast writes it, one fused map `wqkv` to 4 q heads and 2 k, v heads, the
  angles as cos and sin in a last axis of two, (n, d / 2, 2), and a boolean `mask` handed to
  F.scaled_dot_product_attention.
- `hf`: maps `q_proj`...`o_proj`; `position_embeddings` = (cos, sin), (batch, n, d), applied
  with half the features turned (rotate_half); `attention_mask` required, which the model hands
  in as the causal mask; `is_causal` set.
- `inner`: nanoGPT's layer that rotates q and k itself, by a `Rotary` module holding cos and
  sin worked out ahead for every position, as modded-nanogpt's does.
- `capped`: as `hf`, the scores soft-capped as 50 tanh(s / 50) before the mask, as Gemma 2's
  `attn_logit_softcapping` does.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


def turn_complex(x, freqs_cis):
    """x (b, n, h, d): feature pairs (2i, 2i + 1) as complex numbers, times e^(i angle)."""
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(pairs * freqs_cis[None, :, None, :]).flatten(3).type_as(x)


def turn_pairs(x, freqs_cis):
    """x (b, n, h, d), freqs_cis (n, d / 2, 2) holding cos and sin of each pair's angle."""
    pairs = x.float().reshape(*x.shape[:-1], -1, 2)
    cos, sin = freqs_cis[None, :, None, :, 0], freqs_cis[None, :, None, :, 1]
    even, odd = pairs[..., 0], pairs[..., 1]
    return torch.stack([even * cos - odd * sin, odd * cos + even * sin], -1).flatten(3).type_as(x)


def rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


class Attention(nn.Module):
    def __init__(self, dim=32, n_heads=4, max_batch=4, max_seq=32, turn=turn_complex, by_dim=False):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        cache = (max_batch, max_seq, n_heads, self.head_dim)
        self.register_buffer("cache_k", torch.zeros(cache), persistent=False)
        self.register_buffer("cache_v", torch.zeros(cache), persistent=False)
        self.turn, self.by_dim = turn, by_dim

    def forward(self, x, start_pos, freqs_cis, mask):
        b, n, _ = x.shape
        q = self.wq(x).view(b, n, self.n_heads, self.head_dim)
        k = self.wk(x).view(b, n, self.n_heads, self.head_dim)
        v = self.wv(x).view(b, n, self.n_heads, self.head_dim)
        q, k = self.turn(q, freqs_cis), self.turn(k, freqs_cis)
        self.cache_k[:b, start_pos : start_pos + n] = k
        self.cache_v[:b, start_pos : start_pos + n] = v
        keys = self.cache_k[:b, : start_pos + n].transpose(1, 2)
        values = self.cache_v[:b, : start_pos + n].transpose(1, 2)
        scale = self.head_dim if self.by_dim else math.sqrt(self.head_dim)
        scores = q.transpose(1, 2) @ keys.transpose(2, 3) / scale
        if mask is not None:
            scores = scores + mask
        weights = F.softmax(scores.float(), dim=-1).type_as(q)
        return self.wo((weights @ values).transpose(1, 2).reshape(b, n, -1))


class FastAttention(nn.Module):
    def __init__(self, dim=32, n_head=4, n_local_heads=2):
        super().__init__()
        self.n_head, self.n_local_heads, self.head_dim = n_head, n_local_heads, dim // n_head
        self.wqkv = nn.Linear(dim, (n_head + 2 * n_local_heads) * self.head_dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x, freqs_cis, mask, input_pos=None):
        b, n, _ = x.shape
        kv_size = self.n_local_heads * self.head_dim
        q, k, v = self.wqkv(x).split([self.n_head * self.head_dim, kv_size, kv_size], dim=-1)
        q = q.view(b, n, self.n_head, self.head_dim)
        k = k.view(b, n, self.n_local_heads, self.head_dim)
        v = v.view(b, n, self.n_local_heads, self.head_dim)
        q, k = turn_pairs(q, freqs_cis), turn_pairs(k, freqs_cis)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        shared = self.n_head // self.n_local_heads
        k, v = k.repeat_interleave(shared, dim=1), v.repeat_interleave(shared, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.wo(y.transpose(1, 2).contiguous().view(b, n, -1))


class Rotary(nn.Module):
    def __init__(self, head_dim, max_seq=64, base=10000.0):
        super().__init__()
        freqs = 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim)
        angles = torch.outer(torch.arange(max_seq).float(), freqs)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, x):  # x (b, h, n, d): the first and second halves of d turned as pairs
        cos, sin = self.cos[None, None, : x.shape[2]], self.sin[None, None, : x.shape[2]]
        first, second = x.float().chunk(2, dim=-1)
        turned = torch.cat((first * cos + second * sin, second * cos - first * sin), -1)
        return turned.type_as(x)


class InnerRotary(nn.Module):
    def __init__(self, n_embd=32, n_head=4):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.rotary = Rotary(n_embd // n_head)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        q, k = self.rotary(q), self.rotary(k)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class DecoderAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4, softcap=None):
        super().__init__()
        self.attn_logit_softcapping = softcap
        self.head_dim = hidden_size // num_heads
        self.scaling = self.head_dim**-0.5
        self.is_causal = True
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states, position_embeddings, attention_mask, **kwargs):
        shape = (*hidden_states.shape[:-1], -1, self.head_dim)
        q = self.q_proj(hidden_states).view(shape).transpose(1, 2)
        k = self.k_proj(hidden_states).view(shape).transpose(1, 2)
        v = self.v_proj(hidden_states).view(shape).transpose(1, 2)
        cos, sin = (t.unsqueeze(1) for t in position_embeddings)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = q @ k.transpose(2, 3) * self.scaling
        if self.attn_logit_softcapping is not None:
            cap = self.attn_logit_softcapping
            scores = torch.tanh(scores / cap) * cap
        if attention_mask is not None:
            scores = scores + attention_mask
        weights = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        out = (weights @ v).transpose(1, 2).reshape(*hidden_states.shape[:-1], -1)
        return self.o_proj(out), weights


torch.manual_seed(0)
meta = Attention()
meta_by_dim = Attention(by_dim=True)
fast = FastAttention()
hf = DecoderAttention()
capped = DecoderAttention(softcap=50.0)
inner = InnerRotary()
