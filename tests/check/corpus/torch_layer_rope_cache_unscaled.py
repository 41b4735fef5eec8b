"""Buggy (torch): torch_layer_rope_cache.py's layer, its rotation taken as `rope`, computing
its scores without the 1/sqrt(head size) scale. Before, the check exited 2 asking for `rope`,
the bug unseen."""

import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from torch_layer_rope_cache import CausalSelfAttention


class Unscaled(CausalSelfAttention):
    def attend(self, q, k, v):
        T = q.size(-2)
        att = q @ k.transpose(-2, -1)  # the slip: no * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(torch.ones(T, T, dtype=torch.bool).tril().logical_not(), -math.inf)
        return att.softmax(dim=-1) @ v


torch.manual_seed(0)
attn = Unscaled()
