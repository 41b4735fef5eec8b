"""Every published name the checker knows, in one table: what it stands for and where it comes
from. Names are hints (the trace reads a torch layer from what it runs); a new library is a new
name or row here, not a new table in the module that reads it.

Each row: the role, its names in the order they are tried (a comma joins the maps read
together: q, k, v kept apart, or q beside a fused k, v; a dot reaches into a module held),
and the code they come from.
"""

from __future__ import annotations

TABLE: tuple[tuple[str, str, str], ...] = (
    # a kernel's parameters
    ("q", "q query queries xq", "SDPA's query, flash-attn's q, LLaMA's xq"),
    ("k", "k key keys xk", "SDPA's key, flash-attn's k, LLaMA's xk"),
    ("v", "v value values xv", "SDPA's value, flash-attn's v, LLaMA's xv"),
    ("causal flag", "causal is_causal use_causal_mask", "flash-attn, SDPA, Keras's MHA"),
    # a module's own attribute saying it is causal, with no flag to pass
    ("causal attribute", "is_causal causal", "Hugging Face's is_causal, xformers' causal"),
    ("mask", "mask attn_mask attention_mask", "SDPA's attn_mask, Hugging Face's"),
    # added to the scores like an additive mask
    ("bias", "bias attn_bias attention_bias", "xformers, flash-attn's tests, flax"),
    ("scale", "scale scaling softmax_scale sm_scale", "SDPA, Hugging Face, flash-attn, Triton"),
    (
        "soft cap",
        "softcap softcapping logit_softcapping attn_logit_softcapping",
        "flash-attn's softcap, Gemma 2's attn_logit_softcapping",
    ),
    # a buffer the kernel writes its output into, required and handed in by the caller
    ("out", "output out", "kernl's attention_forward(q, k, v, output, sm_scale)"),
    # where a layer may be told the position it starts at, for its cache
    ("start", "start_pos", "Meta's LLaMA"),
    # a layer's maps from x to q, k, v, and out
    (
        "fused map",
        "c_attn qkv to_qkv Wqkv qkv_proj query_key_value wqkv",
        "nanoGPT and GPT-2, timm, lucidrains, MosaicML, Phi-3, GPT-NeoX, gpt-fast",
    ),
    (
        "separate maps",
        "query,key,value q_proj,k_proj,v_proj to_q,to_k,to_v wq,wk,wv W_query,W_key,W_value "
        "q_lin,k_lin,v_lin q,k,v query.linear,key.linear,value.linear",
        "BERT, Llama, diffusers, Meta's LLaMA, LLMs from scratch, DistilBERT, T5, labml.ai",
    ),
    # q alone, and k and v from one map, k's columns first
    ("paired maps", "to_q,to_kv q_proj,kv_proj", "lucidrains' to_kv, timm's PVT kv"),
    (
        "map out",
        "c_proj proj out_proj o_proj to_out wo out dense o out_lin output",
        "nanoGPT, timm, nn.MultiheadAttention, Llama, diffusers, LLaMA, BERT, T5, DistilBERT, "
        "labml.ai",
    ),
    # a LayerNorm or RMSNorm the layer may apply to x first; QK-norm on q and k
    # (or to x + attention: the 2017 Transformer's post-norm, jadore801120's `layer_norm`)
    ("norm", "norm pre_norm input_norm ln layer_norm", "lucidrains, vit-pytorch, jadore801120"),
    ("q norm", "q_norm q_layernorm query_norm norm_q", "timm's qk_norm, OLMo 2, Qwen 3"),
    ("k norm", "k_norm k_layernorm key_norm norm_k", "timm's qk_norm, OLMo 2, Qwen 3"),
    # the head count, and the k, v heads' when fewer (grouped-query attention)
    ("heads", "n_head num_heads n_heads num_attention_heads heads nh", "nanoGPT, timm, HF"),
    (
        "k, v heads",
        "num_key_value_heads n_kv_heads num_kv_heads n_kv_head n_local_heads n_query_groups",
        "Hugging Face, LLaMA, gpt-fast, LitGPT",
    ),
    ("head size", "head_dim head_size attention_head_size dim_head d_head", "HF, lucidrains"),
    # where a layer takes the rotation the model hands it, by the form it takes there
    ("rotation as cos, sin", "position_embeddings", "Hugging Face's Llama"),
    ("rotation as complex", "freqs_cis", "Meta's LLaMA, gpt-fast"),
    ("rotation as cos and sin apart", "freqs_cos,freqs_sin cos,sin", "llama2.c, LitGPT"),
    # what a layer that rotates by itself keeps: angles (0 at angle 0), cos (1), sin (0), e^i0
    ("angles", "inv_freq freqs cached_freqs angular_freq", "HF, GPT-NeoX, lucidrains"),
    ("cosines", "cos cos_cached _cos_cached", "modded-nanogpt, older Hugging Face"),
    ("sines", "sin sin_cached _sin_cached", "modded-nanogpt, older Hugging Face"),
    ("complex rotations", "freqs_cis", "Meta's LLaMA"),
    # a learned bias the layer adds to its scores by relative position (0: none)
    (
        "relative bias",
        "relative_attention_bias.weight relative_position_bias_table",
        "T5's bias per bucket of distance; Swin's and BEiT's per offset in a window",
    ),
)


def _names(said: str) -> tuple:
    return tuple(tuple(n.split(",")) if "," in n else n for n in said.split())


BY_ROLE: dict[str, tuple] = {role: _names(said) for role, said, _ in TABLE}


def named(role: str) -> tuple:
    """The published names of `role`, in the order they are tried (tuples for maps read
    together)."""
    return BY_ROLE[role]
