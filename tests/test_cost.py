"""The cost figures of SPEC §2.1, from cost.py."""

from selfattn import cost
from selfattn.numbers import size


def test_gpt2_small_bill():
    assert size(cost.score_bytes(1024)) == "2.0 MiB"
    assert size(cost.all_heads_score_bytes(1024)) == "288.0 MiB"
    assert size(cost.score_bytes(131072)) == "32.0 GiB"
    assert size(cost.token_bytes(131072)) == "192.0 MiB"
    assert round(cost.score_bytes(131072) / cost.token_bytes(131072)) == 171
    assert size(cost.output_bytes(131072)) == "16.0 MiB"  # what a tiled pass writes instead


def test_counts_and_macs():
    assert cost.dot_products(6) == 36 and cost.causal_discarded(6) == 15
    assert cost.dot_products(1000) == 1_000_000
    assert cost.head_macs(1024, 64) == 2 * 1024 * 1024 * 64
    assert cost.GPT2_SMALL.d_head == 64


def test_projections_dominate_until_twice_d_model():
    n = cost.projections_dominate_until()
    assert n == 1536
    model = cost.GPT2_SMALL
    assert cost.projection_macs(n - 1, model) > cost.layer_score_macs(n - 1, model)
    assert cost.projection_macs(n + 1, model) < cost.layer_score_macs(n + 1, model)
