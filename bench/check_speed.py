"""How long `selfattn check` takes in-process on torch targets: four kernels (the budget is
under 1 s each, the median well under) and four layers (issue 32's goal: a median of 0.2 s).
Best of three per target, imports excluded; printed, not asserted, since a shared CPU makes
any timed test flaky.

    python -m bench.check_speed
"""

from __future__ import annotations

import importlib.util
import statistics

from bench.gradient_cost import seconds  # the best of three checks, gradients included
from tests.check.published import load

KERNELS = (
    ("torch_correct_manual.py", "attention"),
    ("torch_einsum_bhnd.py", "attend"),
    ("torch_two_masks.py", "attention"),
    ("torch_flash_ref_bnhd.py", "attention_ref"),
)
LAYERS = (
    ("torch_layer_nanogpt.py", "manual"),
    ("torch_layer_vit.py", "attn"),
    ("torch_layer_whisper.py", "attn"),
    ("torch_layer_swin_v2.py", "attn"),
)


def line(kind: str, targets: tuple[tuple[str, str], ...], goal: str) -> str:
    took = {file: seconds(load(file, name)) for file, name in targets}
    each = ", ".join(f"{file.removesuffix('.py')} {s:.3f}" for file, s in took.items())
    median = statistics.median(took.values())
    most = max(took.values())
    return f"check of a torch {kind}: median {median:.3f} s, max {most:.3f} s ({goal}); {each}"


def main() -> None:
    if importlib.util.find_spec("torch") is None:
        print("check speed: torch is not installed, nothing to time")
        return
    print(line("kernel", KERNELS, "the budget: under 1 s each"))
    print(line("layer", LAYERS, "the goal: median at most 0.2 s"))


if __name__ == "__main__":
    main()
