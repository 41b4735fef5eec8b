"""Every number the prose may quote, by id: the claims, and the counts and costs around them."""

from __future__ import annotations

import math
import sys

import numpy as np

from .. import cost, heads, leak, learn
from ..article import (
    FLOOR_SCORE,
    GPT2_CONTEXT,
    HUGE_SHIFT,
    LONG_CONTEXT,
    NAMED_RAW,
    ROPE_THETA,
    STRETCH,
    THOUSAND_TOKENS,
)
from ..attention import spread, stacked_alone
from ..bugs import SilentBugs, buggy_head, turn
from ..claims import CLAIMS, output_with_raw_score, shadows, turn_degrees
from ..head import Head
from ..numbers import fixed, grouped, size, vector, weight

N_TOKENS = 6
SMALLEST_SUBNORMAL = sys.float_info.min * sys.float_info.epsilon  # 4.9 × 10⁻³²⁴
STACKED_LAYERS = 3  # F21's deepest stack: by then the six tokens are one point


def _stacked(head: Head) -> dict[str, str]:
    """How far apart the six tokens are after 1, 2 and 3 layers of attention alone (F21)."""
    run = head.run()
    layers = stacked_alone(run["out"], head.W_Q, head.W_K, STACKED_LAYERS)
    spreads = {"values": spread(run["V"])} | {
        str(k): spread(out) for k, out in enumerate(layers, start=1)
    }
    return {f"stack.spread.{name}": weight(value, 2) for name, value in spreads.items()}


def _training() -> dict[str, str]:
    """The two training runs of F19, measured by the build (leak.py)."""
    runs = leak.measured()
    return {
        "leak.steps": grouped(runs.correct.steps[-1]),
        "leak.vocab": grouped(runs.vocab),
        "leak.length": grouped(runs.length),
        "leak.sequences": grouped(runs.n_train),
        "leak.train.correct": fixed(runs.correct.train_loss[-1]),
        "leak.train.leaky": fixed(runs.leaky.train_loss[-1]),
        "leak.held.correct": fixed(runs.correct.held_out),
        "leak.held.leaky": fixed(runs.leaky.held_out),
        "leak.floor": fixed(runs.floor),
        "leak.chance": fixed(runs.chance),
    }


def _learning() -> dict[str, str]:
    """The choices of part two's training (learn.py), as the prose states them."""
    return {
        "learn.steps": grouped(learn.STEPS),
        "learn.rate": fixed(learn.LEARNING_RATE, 1),
        "learn.seed": grouped(learn.SEED),
        "learn.seeds": grouped(learn.SEEDS),
        "learn.gain": fixed(learn.GAIN, 0),
        "learn.dog": vector(learn.DOG, 1),
    }


def matrix(rows, decimals: int = 2) -> str:
    """`matrix([[0.58, 1.44], [-0.74, 0.63]])` → '[[0.58, 1.44], [−0.74, 0.63]]': rows in order,
    as the page prints a vector, so a reader can copy a matrix into numpy."""
    return "[" + ", ".join(vector(row, decimals) for row in rows) + "]"


def _trained(head: Head) -> dict[str, str]:
    """F27's run before and after: W_Q and W_K (two decimals, as the page prints every
    parameter), the rates it offers, and the trained picture: how many degrees it's query is
    from each key of the cat sentence, and how long each key is (cat wins on length, F07)."""
    run = learn.outcome(head).opening
    task = learn.pronoun_task(head)
    x = task.X[0]  # the cat sentence
    q = x[task.it] @ run.W_Q[-1]
    keys = x @ run.W_K[-1]
    numbers = {
        "learn.wq.start": matrix(run.W_Q[0]),
        "learn.wk.start": matrix(run.W_K[0]),
        "learn.wq.end": matrix(run.W_Q[-1]),
        "learn.wk.end": matrix(run.W_K[-1]),
        "learn.rate.slow": fixed(learn.RATES[0]),
        "learn.rate.fast": fixed(learn.RATES[-1], 1),
        "learn.q.end": vector(q),
    }
    numbers |= _cliff(task, run)
    for j, token in enumerate(learn.TEMPLATE):
        name = token.format(noun="cat")
        numbers[f"learn.angle.{name}"] = fixed(float(turn_degrees(q, keys[j])), 1)
        numbers[f"learn.key.{name}"] = fixed(float(np.linalg.norm(keys[j])))
    return numbers


def _cliff(task: learn.Task, run: learn.Training) -> dict[str, str]:
    """Why F27's first step is a cliff: at step 0 the row of `it` leans on ate in both
    sentences, and ate's value lies far on cat's side of the midpoint (along u), so the dog
    sentence's guess is "ran", nearly sure: z there, P(ran) there, and ate's value along u."""
    values = task.X[1] @ task.W_V  # the dog sentence: its weights at step 0 mix these
    out = run.weights[0][1] @ values
    z = learn.GAIN * float((out - task.midpoint) @ task.direction)
    ate = float((values[learn.TEMPLATE.index("ate")] - task.midpoint) @ task.direction)
    return {
        "learn.z.dog.start": fixed(z),
        "learn.ran.dog.start": fixed(1 / (1 + math.exp(-z))),
        "learn.ate.along": fixed(ate),
    }


def _head_two() -> dict[str, str]:
    """F29's head 2 and W_O, as heads.json stores them: a pencil needs them all."""
    two = heads.two_heads()
    return {
        "heads.h2.wq": matrix(two.W_Q[1]),
        "heads.h2.wk": matrix(two.W_K[1]),
        "heads.h2.wv": matrix(two.W_V[1]),
        "heads.wo": matrix(two.W_O),
    }


def _turn(head: Head) -> dict[str, str]:
    """F28's turn: θ as F26's RoPE takes it, how many positions apart it and cat stand, and
    the angle between it's query and cat's key before and after the turn (3 rad of turning
    takes 30° to 158°: an angle between arrows never exceeds 180°)."""
    run = head.run()
    it, cat = head.index("it"), head.index("cat")
    gap = it - cat
    q, k = run["Q"][it], run["K"][cat]
    q_turned, k_turned = turn(np.array([q, k]), np.array([it, cat]), ROPE_THETA)
    return {
        "turn.theta": fixed(ROPE_THETA, 0),
        "turn.gap": grouped(gap),
        "turn.gap.degrees": fixed(math.degrees(gap * ROPE_THETA), 0),
        "turn.angle.before": fixed(float(turn_degrees(q, k)), 0),
        "turn.angle.after": fixed(float(turn_degrees(q_turned, k_turned)), 0),
        # a real head turns d/2 planes, each at its own speed
        "gpt2.rope.planes": grouped(cost.GPT2_SMALL.d_head // 2),
    }


def _long_key(head: Head) -> dict[str, str]:
    """F26's stretched key of `and` (mask on, no positions, as the toy is): how many times
    longer the switch makes it, which the prose states since the figure may not; it tops only
    the rows whose query is within 90° of it; row ran, 104° away, gives it its least."""
    weights = buggy_head(head, SilentBugs(long_key_takeover=True))["W"]
    run = head.run()
    ran, and_ = head.index("ran"), head.index("and")
    return {
        "bugs.longkey.stretch": fixed(STRETCH, 0),
        "bugs.longkey.ran.and": fixed(float(weights[ran, and_])),
        "angle.ran.and": fixed(float(turn_degrees(run["Q"][ran], run["K"][and_])), 0),
    }


def _heads(head: Head) -> dict[str, str]:
    """F29: the output of it with both heads joined through W_O, as one point."""
    return {"heads.out": vector(heads.joined(head).output[head.index("it")])}


def _angles(head: Head) -> dict[str, str]:
    """Degrees between it's query and the keys F07 compares: and's, which a stretch makes win,
    and cat's, which wins unstretched; and F03's question: it's own key is closest and catches
    the longest shadow, cat's is longer and scores higher."""
    run = head.run()
    q = run["Q"][head.index("it")]
    cast = shadows(head, "it")
    return {
        f"angle.it.{key}": fixed(float(turn_degrees(q, run["K"][head.index(key)])), 0)
        for key in ("and", "cat", "it")
    } | {f"shadow.it.{key}": fixed(float(cast[head.index(key)])) for key in ("cat", "it")}


def _computed(head: Head) -> dict[str, str]:
    gpt2 = cost.GPT2_SMALL
    d_toy = head.X.shape[-1]
    return {
        **_angles(head),
        "output.it": vector(head.run()["out"][head.index("it")]),
        "convex.cat8": vector(output_with_raw_score(head, "it", "cat", NAMED_RAW)),
        "convex.cat8.raw": fixed(NAMED_RAW),
        **_stacked(head),
        **_training(),
        **_learning(),
        **_trained(head),
        **_head_two(),
        **_turn(head),
        **_long_key(head),
        # the weighted sum's section uses the unmasked weights; with the mask, this
        "output.it.causal": vector(head.run(mask="causal")["out"][head.index("it")]),
        # below this, e^s is exactly 0 in float64: the log of the smallest subnormal, halved
        "softmax.underflow": fixed(math.log(SMALLEST_SUBNORMAL) - math.log(2), 0),
        **_heads(head),
        "softmax.floor.score": fixed(FLOOR_SCORE, 0),
        "softmax.ate.top": fixed(float(head.run()["W"][head.index("ate")].max())),
        "softmax.shift.max": fixed(-float(head.run()["S"][head.index("it")].max())),
        "softmax.shift.huge": grouped(HUGE_SHIFT),
        "softmax.overflow": fixed(math.log(sys.float_info.max)),
        "counts.dot": grouped(cost.dot_products(N_TOKENS)),
        "counts.discarded": grouped(cost.causal_discarded(N_TOKENS)),
        "counts.kept": grouped(cost.dot_products(N_TOKENS) - cost.causal_discarded(N_TOKENS)),
        "tokens.n1000": grouped(THOUSAND_TOKENS),
        "counts.n1000": grouped(cost.dot_products(THOUSAND_TOKENS)),
        "divisor.toy": fixed(math.sqrt(d_toy), 3),
        "divisor.gpt2": fixed(math.sqrt(gpt2.d_head), 0),
        "spread.d64": fixed(math.sqrt(64)),
        # F15: from the toy's width 2 to width d the raw scores grow by √(d/2)
        "sqrtd.factor.d16": fixed(math.sqrt(16 / 2)),
        "sqrtd.factor.d64": fixed(math.sqrt(64 / 2)),
        "cost.crossover": grouped(cost.projections_dominate_until(gpt2)),
        "cost.n1024": grouped(GPT2_CONTEXT),
        "cost.n1024.head": size(cost.score_bytes(GPT2_CONTEXT)),
        "cost.n1024.all": size(cost.all_heads_score_bytes(GPT2_CONTEXT), 0),
        "cost.n131072": grouped(LONG_CONTEXT),
        "cost.n131072.head": size(cost.score_bytes(LONG_CONTEXT)),
        "cost.n131072.tokens": size(cost.token_bytes(LONG_CONTEXT)),
        "cost.n131072.ratio": grouped(
            round(cost.score_bytes(LONG_CONTEXT) / cost.token_bytes(LONG_CONTEXT))
        ),
        "tiled.toy.written": grouped(N_TOKENS * d_toy),
        "tiled.toy.scores": grouped(cost.dot_products(N_TOKENS)),
        "tiled.n131072.written": size(cost.output_bytes(LONG_CONTEXT)),
        "gpt2.layers": grouped(gpt2.layers),
        "gpt2.heads": grouped(gpt2.heads),
        "gpt2.d_model": grouped(gpt2.d_model),
        "gpt2.d_head": grouped(gpt2.d_head),
    }


def prose_numbers(head: Head) -> dict[str, str]:
    """id → the text the page prints for it, every one computed from the head."""
    printed = {c.id: c.computed(head) for c in CLAIMS if c.value is not None}
    return printed | _computed(head)
