"""The catalogue of findings, one entry per id as ruff keeps a rule: its severity, what it means
(the README's table is made from these), why it matters, the fix, and the reference variants
that produce it; the variants the diagnosis matches against are gathered from here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from .reference import Variant

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Masked:
    """A causal-mask bug as a variant of whatever the kernel computes without its mask: which
    scores it keeps (a key of reference.KEEP) and how it applies the mask."""

    detail: str  # one line; `{fill}` for the fill measured on the kernel
    keep: str
    how: str = "inf"  # inf | fill | after, as Variant.how
    measured: bool = False  # the fill is the value measured on the kernel: only when one was


@dataclass(frozen=True)
class Spec:
    """What one finding id means; the ids are part of the interface and never change."""

    id: str
    title: str  # one line: what is wrong
    why: str  # why it matters
    fix: str  # how to fix it
    severity: Severity = "error"
    summary: str = ""  # what it means, for the README's table of ids
    variants: tuple[Variant, ...] = ()  # the outputs that show it without a mask
    masks: tuple[Masked, ...] = ()  # the causal masks that show it, on the kernel's own base


_CAUSAL_WHY = (
    "During training every position sees the tokens it is asked to predict, so the loss "
    "drops fast and generation falls apart, with no error anywhere."
)

SPECS: tuple[Spec, ...] = (
    Spec(
        "causal-mask-multiplied",
        "the causal mask multiplies the scores by 0, so future scores become 0, not -inf",
        "A score of 0 still gets weight exp(0) = 1 after softmax. " + _CAUSAL_WHY,
        "Replace `scores * mask` by `scores.masked_fill(~keep, float('-inf'))` "
        "(numpy: `np.where(keep, scores, -np.inf)`).",
        summary=(
            "the causal mask multiplies the scores by 0, so future scores become 0, not −∞ (a "
            "float32 kernel cannot tell this from a fill like −1e-12)"
        ),
        masks=(Masked("scores * keep: future scores set to 0", "causal", "fill"),),
    ),
    Spec(
        "causal-mask-finite-fill",
        "the causal mask fills the future with a finite value that does not block it",
        "exp(fill) is not 0, so every position still attends to later ones. " + _CAUSAL_WHY,
        "Fill with float('-inf') or the dtype's most negative value "
        "(torch.finfo(dtype).min); a typo such as -1e-12 for -1e12 is the usual cause.",
        summary=(
            "the future is filled with a finite value that does not block it (e.g. −1e-12 for "
            "−1e12); the report gives the value"
        ),
        masks=(Masked("future scores filled with {fill:.3g}", "causal", "fill", measured=True),),
    ),
    Spec(
        "causal-mask-after-softmax",
        "the causal mask is applied to the weights after softmax",
        "Later keys still enter the softmax denominator, so the output moves when the future "
        "changes, and the kept weights no longer sum to one.",
        "Mask the scores before softmax (fill the future with -inf), not the weights after it.",
        summary=(
            "the mask is applied to the weights after softmax: later keys still steer the "
            "denominator, and rows no longer sum to one (or, renormalised, are 0/0 where the "
            "largest score is in the future)"
        ),
        masks=(Masked("softmax(s) * keep: mask after softmax", "causal", "after"),),
    ),
    Spec(
        "causal-mask-wrong-triangle",
        "the causal mask blocks the past and keeps the future (wrong triangle)",
        "Each position attends to the tokens after it instead of before it. " + _CAUSAL_WHY,
        "Block the strict upper triangle: `np.triu(np.ones((n, n), bool), k=1)` marks what to "
        "hide; `np.tril(...)` marks what to keep.",
        summary="the mask blocks the past and keeps the future",
        masks=(
            Masked("keeps j >= i: the past is masked", "wrong-triangle"),
            Masked("keeps j > i: the past is masked", "wrong-triangle-strict"),
        ),
    ),
    Spec(
        "causal-mask-off-by-one",
        "the causal mask is off by one on the diagonal",
        "Either each position also sees the next token (a leak), or it cannot see itself, "
        "which empties the first row (NaN, or uniform over the future with a finite fill).",
        "Keep j <= i: hide `np.triu(ones, k=1)` (torch.triu(..., diagonal=1)); check the "
        "k/diagonal argument.",
        summary="the diagonal is off by one: position i sees i + 1, or cannot see itself",
        masks=(
            Masked("keeps j <= i + 1: position i sees i + 1", "sees-next"),
            Masked("keeps j < i: position i cannot see itself", "no-diagonal"),
        ),
    ),
    Spec(
        "causal-flag-ignored",
        "the causal flag or mask has no effect on the output",
        "A model trained with it sees the whole sequence, future included. " + _CAUSAL_WHY,
        "Apply the mask inside the kernel when the flag is set (or pass the mask through to "
        "the function that computes the scores).",
        summary="the causal flag or mask has no effect (or `causal=False` still masks)",
    ),
    Spec(
        "causal-leak",
        "with the causal mask on, an output depends on later positions",
        _CAUSAL_WHY,
        "Make sure every score with j > i is -inf before softmax; the reproduction shows a "
        "row that moves when only later keys and values change.",
        summary=(
            "with the mask on, an output depends on later positions in a way none of the above "
            "explains"
        ),
    ),
    Spec(
        "padding-mask-leak",
        "a key marked as padding still gets weight",
        "Padding tokens (zeros, or whatever fills the batch) leak into every real position, so "
        "outputs change with how much padding a batch needs.",
        "Fill the padded keys' scores with -inf before softmax, e.g. "
        "`scores.masked_fill(~key_padding_mask[:, None, None, :], float('-inf'))`; multiplying "
        "the scores by the mask only sets them to 0.",
        summary=(
            "a key marked as padding in a `(batch, n)` key-padding mask still gets weight (or the"
            " padding mask has no effect)"
        ),
    ),
    Spec(
        "scale-missing",
        "the scores are not scaled: softmax(q k^T) instead of softmax(q k^T / sqrt(d))",
        "Score spread grows like sqrt(d), so at real widths softmax saturates to one-hot "
        "weights and gradients vanish; training is slow or unstable.",
        "Divide the scores by math.sqrt(d) where d = q.shape[-1]. (T5 and GPT-Neo leave it "
        "out on purpose, T5 with 1/sqrt(d) folded into how q is initialised: a model trained "
        "that way is right as it is.)",
        summary="softmax(q kᵀ) instead of softmax(q kᵀ / √d)",
        variants=(Variant("scale-missing", "softmax(q k^T) v: no scaling", scores="raw"),),
    ),
    Spec(
        "scale-by-d",
        "the scores are divided by d instead of sqrt(d)",
        "Scores shrink like 1/sqrt(d), so at real widths the weights are nearly uniform and "
        "attention averages everything.",
        "Divide by math.sqrt(d), not d.",
        summary="the scores are divided by d instead of √d",
        variants=(Variant("scale-by-d", "softmax(q k^T / d) v", scores="by-d"),),
    ),
    Spec(
        "scale-inverted",
        "the scores are multiplied by sqrt(d) instead of divided by it",
        "Scores grow like d, softmax saturates to one-hot weights and gradients vanish.",
        "Use `scores / math.sqrt(d)` (or `scores * d ** -0.5`).",
        summary="the scores are multiplied by √d instead of divided by it",
        variants=(Variant("scale-inverted", "softmax(q k^T * sqrt(d)) v", scores="times-sqrt-d"),),
    ),
    Spec(
        "scale-after-softmax",
        "the scale is applied after softmax: the weights are divided by sqrt(d)",
        "The weights sum to 1/sqrt(d), not one, and the scores were never tempered, so the "
        "output is both shrunk and too peaked.",
        "Scale the scores before softmax: softmax(q k^T / sqrt(d)).",
        summary="the weights, not the scores, are divided by √d",
        variants=(
            Variant(
                "scale-after-softmax",
                "softmax(q k^T) / sqrt(d) v",
                scores="raw",
                norm="after-scale",
            ),
        ),
    ),
    Spec(
        "scale-wrong",
        "the scores are scaled by the wrong factor",
        "The temperature of softmax is off, so weights are too peaked or too flat, and it "
        "changes with the wrong dimension (or not at all) as shapes change.",
        "Scale by 1/sqrt(d) with d = q.shape[-1], the key/query width, computed from the input.",
        summary="another wrong factor: a hard-coded constant, or √n instead of √d",
        variants=(
            Variant(
                "scale-wrong",
                "softmax(q k^T / sqrt(n)) v: scaled by the sequence length",
                "by-sqrt-n",
            ),
        ),
    ),
    Spec(
        "softmax-wrong-axis",
        "softmax normalises over the wrong axis (the queries or the heads, not the keys)",
        "Each query's weights no longer sum to one, and every output depends on every other "
        "query, so outputs mix across positions (and across the future).",
        "Use softmax(scores, axis=-1) / dim=-1: normalise each row, over the keys.",
        summary="softmax over the queries (axis −2), or over the heads of a batched tensor",
        variants=(
            Variant("softmax-wrong-axis", "softmax(q k^T / sqrt(d), axis=-2) v", norm="axis0"),
            Variant(
                "softmax-wrong-axis", "softmax(q k^T, axis=-2) v, also unscaled", "raw", "axis0"
            ),
        ),
    ),
    Spec(
        "key-transpose",
        "the scores use the wrong transpose (q @ k, k @ q^T, or q^T @ k instead of q @ k^T)",
        "The weights pair the wrong things (or features instead of positions); the code only "
        "runs at all when n == d or by accident of broadcasting.",
        "Compute q @ k.swapaxes(-2, -1) (torch: k.transpose(-2, -1) or k.mT); "
        "`k.T` reverses every axis on batched tensors.",
        summary=(
            "`q @ k`, `k @ q.T` or `q.T @ k` instead of `q @ k.T`; for torch, `k.T` on a batched "
            "tensor"
        ),
        variants=(
            Variant(
                "key-transpose", "softmax(q @ k / sqrt(d)) v: k not transposed", "no-transpose"
            ),
            Variant(
                "key-transpose", "softmax(k @ q^T / sqrt(d)) v: scores transposed", "transposed"
            ),
            Variant(
                "key-transpose",
                "v @ softmax(q^T @ k / sqrt(d)): attention over features",
                features=True,
            ),
        ),
    ),
    Spec(
        "weights-not-normalized",
        "the attention weights do not sum to one over the keys",
        "Outputs are no longer averages of the values: their size drifts with sequence length "
        "and score scale.",
        "Divide exp(scores - max) by its sum over the last axis (or call a real softmax).",
        summary="the weights do not sum to one (exp without its sum, sigmoid, …)",
        variants=(
            Variant("weights-not-normalized", "exp(q k^T / sqrt(d)) v: no denominator", norm="exp"),
            Variant(
                "weights-not-normalized",
                "exp(s - max(s)) v: max subtracted, no sum",
                norm="exp-max",
            ),
            Variant("weights-not-normalized", "softmax over the whole score matrix", norm="all"),
        ),
    ),
    Spec(
        "online-softmax-no-rescale",
        "a tiled kernel does not rescale what it has summed when the running max rises",
        "Exponentials summed against an old, smaller max are too large by exp(m_new - m_old), "
        "so keys from earlier tiles get too much weight. The kernel is exact whenever the first "
        "tile holds the row's maximum, which is why short tests and falling scores pass.",
        "When the max moves from m to m_new, multiply both the accumulator and the running sum "
        "by exp(m - m_new) before adding the new tile; if the rescale is skipped on small "
        "jumps, the old max must be kept too.",
        summary=(
            "a tiled kernel does not rescale its accumulator and sum by exp(m_old − m_new) when "
            "the running max rises (or rescales only on big jumps while moving the max on every "
            "tile)"
        ),
    ),
    Spec(
        "online-softmax-early-normalize",
        "a tiled kernel divides by the running sum inside the loop instead of once at the end",
        "The sum after tile j has seen only tiles 0..j, so earlier tiles are divided by too "
        "small a total and the weights add up to more than one.",
        "Keep the accumulator unnormalised (rescaled by exp(m - m_new) as the max moves) and "
        "divide by the final sum once, after the last tile.",
        summary=(
            "a tiled kernel divides by the running sum inside the loop, so earlier tiles are "
            "divided by too small a total"
        ),
    ),
    Spec(
        "split-combine-unscaled",
        "partial results over key splits are merged without bringing them to one max",
        "Each split's sum of exponentials is taken against that split's own max, so a split "
        "whose scores are low counts as much as the one that holds the true maximum.",
        "Merge through the log-sum-exp: weigh split i by exp(lse_i - max lse), where "
        "lse_i = m_i + log(l_i), or rescale each l_i and partial output by exp(m_i - m).",
        summary=(
            "partial results over key splits (split-KV, flash decoding) are merged without "
            "bringing each split's sum to the global max"
        ),
    ),
    Spec(
        "heads-split-wrong",
        "the heads are split by reshaping (batch, n, C) to (batch, heads, n, head_dim), which "
        "cuts across positions",
        "Each head's rows are then pieces of several tokens, so outputs mix positions (the "
        "future too, under a causal mask), and nothing raises because the sizes agree.",
        "Split as `t.view(B, T, heads, head_dim).transpose(1, 2)` and join back with "
        "`.transpose(1, 2).reshape(B, T, C)`.",
        summary=(
            "a layer splits its heads by reshaping `(batch, n, C)` straight to `(batch, heads, n,"
            " head_dim)`, without the transpose, so each head mixes positions"
        ),
    ),
    Spec(
        "heads-joined-wrong",
        "the heads are joined by reshaping (batch, heads, n, head_dim) to (batch, n, C), which "
        "cuts across positions",
        "Each output row is then pieces of several tokens' results, so outputs mix positions "
        "(the future too, under a causal mask), and nothing raises because the sizes agree.",
        "Move the heads back first: `out.transpose(1, 2).reshape(B, T, C)` (`.contiguous()` "
        "before a `.view`).",
        summary=(
            "a layer joins its heads by reshaping `(batch, heads, n, head_dim)` straight to "
            "`(batch, n, C)`, without moving the heads back, so each output row mixes positions"
        ),
    ),
    Spec(
        "random-output",
        "the output is random: two calls on the same inputs differ",
        "Nothing about the result can be checked, and a model built on it answers differently "
        "each time it is asked. Dropout left on is the usual cause: `F.dropout` drops unless "
        "told `training=False`.",
        "Pass `training=self.training` to `F.dropout` (or use an `nn.Dropout` module and call "
        "`.eval()` for inference), or take the dropout probability as an argument that "
        "defaults to 0.",
        summary=(
            "two calls on the same inputs give different outputs (dropout left on: `F.dropout` "
            "without `training=False`, or a dropout probability passed above 0)"
        ),
    ),
    Spec(
        "nonfinite-output",
        "the output has NaN or inf on ordinary inputs",
        "Every downstream value and gradient becomes NaN.",
        "Look for divisions by a zero sum, log of 0, or rows with nothing to attend to.",
        summary="NaN or inf on ordinary inputs",
    ),
    Spec(
        "nonfinite-extreme",
        "the output has NaN or inf on extreme but valid inputs",
        "Large activations happen in real models (and in fp16 at modest sizes); a softmax that "
        "overflows turns one large score into NaN for the whole row.",
        "Subtract the row maximum before exp (a stable softmax), or use the library softmax.",
        summary=(
            "NaN or inf on extreme but valid inputs (a softmax without the max subtracted; "
            "QK-norm without an epsilon)"
        ),
    ),
    Spec(
        "fails-on-valid-input",
        "raises or returns the wrong shape on some valid input shapes",
        "It works on the shapes it was written for and breaks on others (odd n, n != d, wide "
        "heads).",
        "Derive every size from the inputs (n = q.shape[-2], d = q.shape[-1]).",
        summary="raises or returns the wrong shape on some valid shapes, after working on others",
    ),
    Spec(
        "wrong-output",
        "the output differs from reference attention and matches none of the known bugs",
        "The kernel computes something other than softmax(q k^T / sqrt(d)) v.",
        "Compare step by step with the float64 reference in the reproduction.",
        summary="differs from the reference and matches none of the known bugs",
    ),
    Spec(
        "order-blind",
        "the model ignores word order: permuting the tokens only permutes the outputs",
        "Self-attention is permutation-equivariant; without positional information 'dog bites "
        "man' and 'man bites dog' get the same vectors.",
        "Add positional information: learned or sinusoidal position embeddings added per "
        "position, or rotary embeddings on q and k.",
        summary="a model whose output ignores word order: no positional information",
    ),
    Spec(
        "long-key-takeover",
        "one key with a large norm takes over the weights of many queries",
        "Dot-product scores grow with key length, so one outlier token can capture attention "
        "(attention sinks, loss spikes). Not a bug in the kernel, but nothing in it bounds "
        "the scores.",
        "Normalise before attention: LayerNorm/RMSNorm on the inputs, or QK-norm "
        "(normalise q and k, then use a fixed or learned temperature).",
        severity="warning",
        summary=(
            "one key 100× longer than the rest gets most of the weight of many queries. Plain "
            "dot-product attention always does this, so it is a warning, not a failure: LayerNorm"
            " before the projections or QK-norm is what prevents it"
        ),
    ),
    Spec(
        "reads-out-of-bounds",
        "the kernel reads or writes past its tensors at lengths its block does not divide",
        "A load or store with no mask touches a whole block: at a length that is not a "
        "multiple of the block the last one reaches past the end of q, k, v or the output. On "
        "a GPU nothing stops it: it reads another tensor's memory into the scores, writes over "
        "it, or faults (an illegal memory access), depending on what lies there.",
        "Mask every load and store at the edge: `offs = start + tl.arange(0, BLOCK)`, "
        "`tl.load(ptr + offs, mask=offs < n, other=0.0)` and `tl.store(..., mask=offs < n)`, "
        "and fill the scores of keys past n with -inf before the softmax; or assert in the "
        "launcher that n is a multiple of the block.",
        summary=(
            "a Triton kernel with no boundary mask reads (or writes) outside its tensors at "
            "lengths that are not a multiple of its block; the report names the lengths and the "
            "tensor, and the kernel is checked at the lengths it runs at"
        ),
    ),
    Spec(
        "batched-input-unsupported",
        "the kernel works on one sequence at a time and fails on batched input",
        "Written for one (n, d) sequence, as in a textbook, it is right there, but a model that "
        "hands it (batch, heads, n, d) tensors gets an error (or, by accident of broadcasting, "
        "wrong numbers).",
        "To accept batches, transpose only the last two axes: `k.transpose(-2, -1)` (numpy: "
        "`k.swapaxes(-2, -1)`) instead of `k.T`, and index from the end (`q.shape[-1]`).",
        severity="warning",
        summary=(
            "the kernel works on one `(n, d)` sequence (e.g. a textbook `k.T`) and raises on "
            "batched input; right for what it was written for, so a warning"
        ),
    ),
)

_TRAINS_WRONG = (
    "The forward pass is right, so inference and every forward test pass; training follows "
    "these gradients and learns something else, with no error anywhere."
)

# The backward pass (issue 33): dq, dk, dv (and a layer's weights' gradients) against the
# gradients of the float64 reference on the same inputs.
BACKWARD_SPECS: tuple[Spec, ...] = (
    Spec(
        "backward-scale-missing",
        "the backward pass leaves the softmax scale out of dq and dk",
        "The scores are s = scale * q k^T, so ds/dq = scale * k: without it dq and dk are "
        "sqrt(d) times too large and q, k learn at the wrong rate. " + _TRAINS_WRONG,
        "Multiply the score gradient by the same scale as the forward: dq = scale * dS @ k, "
        "dk = scale * dS^T @ q.",
        summary=(
            "a hand-written backward leaves the softmax scale out of dq and dk (the forward has it)"
        ),
    ),
    Spec(
        "backward-softmax-no-row-term",
        "the softmax gradient drops the row term: dS = P * dP instead of P * (dP - rowsum(dO * O))",
        "Softmax couples each row's weights; without the row term the gradient of a weight "
        "ignores that raising it lowers the others, so dq and dk are wrong. " + _TRAINS_WRONG,
        "Compute D = (dO * O).sum(-1, keepdim=True) (O the forward's output) and "
        "dS = P * (dP - D).",
        summary="the softmax gradient is P ∘ dP instead of P ∘ (dP − rowsum(dO ∘ O))",
    ),
    Spec(
        "backward-causal-leak",
        "the causal mask blocks the forward but the backward lets gradient reach the future",
        "The weights recomputed in the backward are not masked again, so a key after position "
        "i gets gradient from query i: k and v learn from positions that never saw them. "
        + _TRAINS_WRONG,
        "Apply the same mask where the backward recomputes the scores (fill j > i with -inf "
        "before exp(s - lse)), or mask dS.",
        summary=(
            "the forward masks the future but the weights recomputed in the backward are not "
            "masked, so later keys and values get gradient"
        ),
    ),
    Spec(
        "backward-stale-weights",
        "the weights recomputed in the backward are not the forward's (a stale max or log-sum-exp)",
        "The backward recomputes P = exp(s - lse) from statistics the forward saved; saving the "
        "running max instead of the log-sum-exp (or one from an earlier tile) gives rows that "
        "do not sum to one, and every gradient is scaled wrong row by row. " + _TRAINS_WRONG,
        "Save lse = m + log(l) after the last tile of the forward (m the final running max, l "
        "the final sum) and recompute P = exp(scale * q k^T - lse) in the backward.",
        summary=(
            "the backward recomputes weights from a statistic that is not the forward's (the "
            "running max saved instead of the log-sum-exp)"
        ),
    ),
    Spec(
        "backward-causal-always",
        "the backward applies the causal mask though the forward had none",
        "A tiled backward that walks only the tiles on and below the diagonal (or masks them) "
        "whatever the flag says gives the gradients of causal attention to a forward that "
        "attended to every key: a key never gets gradient from the queries before it. "
        + _TRAINS_WRONG,
        "Pass the causal flag to the backward kernels: loop over every key tile and mask only "
        "when causal (Triton's tutorial tested its backward with causal=True only).",
        summary=(
            "the backward masks the future though the forward attended to every key (only the "
            "causal tiles walked, whatever the flag)"
        ),
    ),
    Spec(
        "backward-dropout-mismatch",
        "the backward applies a different dropout mask than the forward",
        "The forward dropped some weights and the backward drops others, so the gradient is "
        "that of an output that was never computed. " + _TRAINS_WRONG,
        "Save the mask in the forward (ctx.save_for_backward) or the generator's seed and "
        "offset, and regenerate exactly the same mask in the backward.",
        summary=(
            "the backward drops other weights than the forward did (the mask drawn again instead "
            "of saved)"
        ),
    ),
    Spec(
        "backward-no-gradient",
        "a weight the output depends on gets no gradient (detached, or under torch.no_grad)",
        "A projection computed under torch.no_grad(), a `.detach()` on k or v, or a custom "
        "backward that returns None or zeros for one input cuts the weight out of the graph: "
        "the optimizer never moves it, and it stays as initialised. " + _TRAINS_WRONG,
        "Remove the detach or the no_grad around the projection (keep no_grad for inference "
        "only), and have the custom backward return a gradient for every input that needs one.",
        summary=(
            "a layer's weight that the output depends on gets no gradient: its projection is "
            "detached (`k = self.key(x).detach()`), computed under `torch.no_grad()`, or a custom"
            " backward returns None for it"
        ),
    ),
    Spec(
        "backward-wrong-output",
        "the gradients differ from the reference's and match none of the known backward bugs",
        "The backward pass computes something other than the derivative of the forward. "
        + _TRAINS_WRONG,
        "Compare dq, dk, dv step by step with torch.autograd on the float64 reference in the "
        "reproduction (or check the custom backward with torch.autograd.gradcheck in float64).",
        summary=(
            "dq, dk, dv (or a layer's weights' gradients) differ from the float64 reference's and"
            " match none of the above"
        ),
    ),
)

SPECS = SPECS + BACKWARD_SPECS

BY_ID: dict[str, Spec] = {s.id: s for s in SPECS}


def id_table() -> str:
    """The README's table of ids: each with its severity and what it means."""
    rows = [f"| `{s.id}` | {s.severity} | {s.summary} |" for s in SPECS]
    return "\n".join(["| id | severity | what it means |", "| --- | --- | --- |", *rows])


# Bugs visible without a mask, most specific first (the catalogue's order); matched against
# the kernel's output.
NONCAUSAL_BUGS: tuple[Variant, ...] = tuple(v for s in SPECS for v in s.variants)
# The causal-mask bugs in the order they are matched: a multiplied mask is a fill of 0, so a
# fill measured on the kernel is tried before it.
CAUSAL_ORDER = (
    "causal-mask-after-softmax",
    "causal-mask-wrong-triangle",
    "causal-mask-off-by-one",
    "causal-mask-finite-fill",
    "causal-mask-multiplied",
)


def causal_bugs(base: Variant, fill: float | None = None) -> tuple[Variant, ...]:
    """The causal-mask bugs, built on `base` (the non-causal behaviour the kernel showed).

    Rows a variant leaves empty come out NaN and are not compared, so each -inf variant
    also stands for the same mask filled with a large finite value.
    `fill` is a measured finite fill value, tried before the plain "multiplied by 0".
    """
    return tuple(
        replace(
            base,
            id=id_,
            detail=m.detail.format(fill=fill) if m.measured else m.detail,
            keep=m.keep,
            how=m.how,
            fill=(fill or 0.0) if m.measured else 0.0,
        )
        for id_ in CAUSAL_ORDER
        for m in BY_ID[id_].masks
        if fill or not m.measured  # None or 0: no fill measured
    )
