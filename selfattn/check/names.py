"""Every published name the checker knows, in one table: what it stands for and where it comes
from. Names are hints (the trace reads a torch layer from what it runs); a new library is a new
row or a new name here, not a new table in the module that reads it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    """Names published code gives one thing (`role`), and the code they come from."""

    role: str
    names: tuple  # strings; a trio or pair of attribute names for maps read together
    where: str


TABLE: tuple[Known, ...] = (
    # a kernel's parameters
    Known("q", ("q", "query", "queries", "xq"), "SDPA's query, flash-attn's q, LLaMA's xq"),
    Known("k", ("k", "key", "keys", "xk"), "SDPA's key, flash-attn's k, LLaMA's xk"),
    Known("v", ("v", "value", "values", "xv"), "SDPA's value, flash-attn's v, LLaMA's xv"),
    Known("causal flag", ("causal", "is_causal"), "flash-attn's causal, SDPA's is_causal"),
    Known("mask", ("mask", "attn_mask", "attention_mask"), "SDPA's attn_mask, Hugging Face's"),
    # added to the scores like an additive mask
    Known("bias", ("bias", "attn_bias", "attention_bias"), "xformers, flash-attn's tests, flax"),
    Known(
        "scale",
        ("scale", "scaling", "softmax_scale", "sm_scale"),
        "SDPA's scale, Hugging Face's scaling, flash-attn's softmax_scale, Triton's sm_scale",
    ),
    Known(
        "soft cap",
        ("softcap", "softcapping", "logit_softcapping", "attn_logit_softcapping"),
        "flash-attn's softcap, Gemma 2's attn_logit_softcapping",
    ),
    # where a layer may be told the position it starts at, for its cache
    Known("start", ("start_pos",), "Meta's LLaMA"),
    # a layer's maps from x to q, k, v
    Known(
        "fused map",
        ("c_attn", "qkv", "to_qkv", "Wqkv", "qkv_proj", "query_key_value", "wqkv"),
        "nanoGPT and GPT-2, timm, lucidrains, MosaicML, Phi-3, GPT-NeoX, gpt-fast",
    ),
    Known(
        "separate maps",
        (
            ("query", "key", "value"),
            ("q_proj", "k_proj", "v_proj"),
            ("to_q", "to_k", "to_v"),
            ("wq", "wk", "wv"),
            ("W_query", "W_key", "W_value"),
            ("q_lin", "k_lin", "v_lin"),
            ("q", "k", "v"),
        ),
        "BERT, Llama, diffusers and lucidrains, Meta's LLaMA, Raschka's LLMs from scratch, "
        "DistilBERT, T5",
    ),
    # q alone, and k and v from one map, k's columns first
    Known(
        "paired maps",
        (("to_q", "to_kv"), ("q", "kv"), ("q_proj", "kv_proj")),
        "lucidrains' to_kv, timm's PVT kv",
    ),
    Known(
        "map out",
        ("c_proj", "proj", "out_proj", "o_proj", "to_out", "wo", "out", "dense", "o", "out_lin"),
        "nanoGPT, timm, nn.MultiheadAttention, Llama, diffusers, LLaMA, BERT, T5, DistilBERT",
    ),
    # a LayerNorm or RMSNorm the layer may apply to x first
    Known("norm", ("norm", "pre_norm", "input_norm", "ln"), "lucidrains, vit-pytorch"),
    # QK-norm: q and k normalised, per head or across the heads
    Known(
        "q norm",
        ("q_norm", "q_layernorm", "query_norm", "norm_q"),
        "timm's qk_norm, OLMo 2, Qwen 3, Megatron",
    ),
    Known(
        "k norm",
        ("k_norm", "k_layernorm", "key_norm", "norm_k"),
        "timm's qk_norm, OLMo 2, Qwen 3, Megatron",
    ),
    Known(
        "heads",
        ("n_head", "num_heads", "n_heads", "num_attention_heads", "heads", "nh"),
        "nanoGPT, timm, LLaMA, Hugging Face, lucidrains",
    ),
    # how many k, v heads a layer has, when fewer than q's (grouped-query attention)
    Known(
        "k, v heads",
        ("num_key_value_heads", "n_kv_heads", "num_kv_heads", "n_kv_head", "n_local_heads"),
        "Hugging Face, LLaMA, gpt-fast",
    ),
    Known(
        "head size",
        ("head_dim", "head_size", "attention_head_size", "dim_head", "d_head"),
        "Hugging Face, nanoGPT's Head, BERT, lucidrains, TransformerLens",
    ),
    # where a layer takes the rotation the model hands it, by the form it takes there
    Known("rotation as cos, sin", ("position_embeddings",), "Hugging Face's Llama"),
    Known("rotation as complex", ("freqs_cis",), "Meta's LLaMA, gpt-fast"),
    # angles a layer that rotates by itself keeps, by what each holds at angle 0
    Known(
        "angles",
        ("inv_freq", "freqs", "cached_freqs", "angular_freq"),
        "Hugging Face's and GPT-NeoX's inv_freq, lucidrains' freqs",
    ),
    Known("cosines", ("cos", "cos_cached", "_cos_cached"), "modded-nanogpt, older Hugging Face"),
    Known("sines", ("sin", "sin_cached", "_sin_cached"), "modded-nanogpt, older Hugging Face"),
    Known("complex rotations", ("freqs_cis",), "Meta's LLaMA"),
)

BY_ROLE: dict[str, tuple] = {row.role: row.names for row in TABLE}


def named(role: str) -> tuple:
    """The published names of `role`, in the order they are tried."""
    return BY_ROLE[role]
