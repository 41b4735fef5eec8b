"""A padded batch's attention_mask, as Hugging Face returns it, leaves the padding out of every
map view: padded keys and queries are not drawn as tokens, the checks and summaries ignore
them, and a wrong mask is one line. show_map took no attention_mask (TypeError), so a
right-padded BERT drew its [PAD] rows, each a uniform row the checks passed and the
summaries averaged in."""

from __future__ import annotations

import numpy as np
import pytest

from selfattn.notebook import show_compare, show_heads, show_lines, show_map, show_tokens


def padded_batch() -> tuple[np.ndarray, np.ndarray, list[list[str]]]:
    """Two sequences, the second right-padded by two, as a BERT batch: (batch, heads, n, n)
    per layer, padding keys at 0 weight and padding query rows uniform over the real keys
    (what a padded BERT's [PAD] rows look like); a NaN in a padding row of sequence 0's mask
    would be a failure if it were checked."""
    rng = np.random.default_rng(0)
    n, heads = 6, 2
    mask = np.array([[1] * 6, [1, 1, 1, 1, 0, 0]])
    w = rng.random((2, heads, n, n)) * mask[:, None, None, :]
    w /= w.sum(-1, keepdims=True)
    w[1, :, 4:, :] = np.nan  # padding queries of sequence 1: nonsense, never shown or checked
    tokens = [
        ["[CLS]", "the", "cat", "ate", "it", "[SEP]"],
        ["[CLS]", "it", "ran", "[SEP]", "[PAD]", "[PAD]"],
    ]
    return w, mask, tokens


def test_show_map_leaves_padding_out() -> None:
    w, mask, tokens = padded_batch()
    m = show_map(w, tokens[1], batch=1, attention_mask=mask)
    assert m.tokens == ["[CLS]", "it", "ran", "[SEP]"] and m.shape[-2:] == [4, 4]
    assert not m.failed and not m.broken
    assert "2 padding tokens left out (attention_mask)" in repr(m)
    drawn = np.frombuffer(m.weights, "<f4").reshape(4, 4)
    assert np.allclose(drawn, w[1, 0, :4, :4])
    assert "4 tokens" in m._still() and "[PAD]" not in m._still()
    # without the mask the padding's NaN rows are drawn and fail
    assert show_map(w, tokens[1], batch=1).failed


def test_a_tokenizer_output_and_every_map_view_take_it() -> None:
    w, mask, tokens = padded_batch()
    given = {"attention_mask": {"input_ids": None, "attention_mask": mask}, "batch": 1}
    for view in (show_map, show_lines, show_tokens, show_heads):
        m = view(w, tokens[1], **given)
        assert len(m.tokens) == 4 and not m.failed, view.__name__
    heads = show_heads(w, tokens[1], attention_mask=mask, batch=1)
    assert heads.table["entropy"].shape == (1, 2) and np.isfinite(heads.table["entropy"]).all()
    both = show_compare(w, w, tokens[1], attention_mask=mask, batch=1)
    assert both.tokens == ["[CLS]", "it", "ran", "[SEP]"] and not both.failed
    one = show_map(w[1], tokens[1], attention_mask=mask[1])  # (heads, n, n) and an (n,) mask
    assert one.tokens == ["[CLS]", "it", "ran", "[SEP]"]


def test_a_wrong_mask_is_one_line() -> None:
    w, mask, tokens = padded_batch()
    with pytest.raises(
        ValueError,
        match=r"attention_mask must be \(n,\) or \(batch, n\) of 0 and 1.*n = 6 tokens.*"
        r"not \(2, 5\)",
    ):
        show_map(w, tokens[1], batch=1, attention_mask=mask[:, :5])
    with pytest.raises(ValueError, match=r"of 0 and 1.*it holds \[0.5, 1.0\]"):
        show_map(w, tokens[1], batch=1, attention_mask=np.where(mask, 1.0, 0.5))
    with pytest.raises(ValueError, match=r"a batch of 2 sequences: say which one"):
        show_map(w[1], tokens[1], attention_mask=mask)


def test_a_tuple_of_layers_is_unpadded_a_layer_at_a_time() -> None:
    import tracemalloc

    n, rng = 128, np.random.default_rng(2)
    mask = np.array([[1] * 64 + [0] * 64])
    given = []
    for _ in range(6):
        w = rng.random((1, 4, n, n), dtype=np.float32) * mask[:, None, None, :]
        given.append(w / w.sum(-1, keepdims=True))
    size = 6 * 4 * n * n * 4
    tracemalloc.start()
    try:
        m = show_map(tuple(given), attention_mask=mask)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert m.shape == [6, 4, 64, 64] and not m.failed
    assert np.allclose(np.frombuffer(m.weights, "<f4"), given[0][0, 0, :64, :64].ravel())
    assert peak < 0.9 * size, f"{peak / size:.2f} of the stack copied"  # a whole copy: > 1.25
