"""A stand-in for the object a module-first function takes before q, k and v.

Hugging Face's `eager_attention_forward(module, query, key, value, attention_mask, scaling,
dropout=0.0, **kwargs)`, the function every model of the library calls, reads a few attributes
of the layer that calls it (`module.num_key_value_groups`, `module.training`, sometimes
`module.config.…`) and nothing else of it. Which ones is not read from names: the stand-in
records each attribute the function asks for and has not been given, and the call is made
again with it answered. Each answer is tried in order (None, an option left out; 1, a count
or a factor that changes nothing; False; a stand-in of its own, for an object such as a
config), the next one when the call still fails and asked for nothing new. `training` is
False from the start: the stand-in is a module in eval mode, as every layer is checked.
"""

from __future__ import annotations

from typing import Any

ANSWERS: tuple[Any, ...] = (None, 1, False)  # then a stand-in of its own
TRIES = 24  # calls at most, per layout tried


class StandIn:
    """An object that answers the attributes a function reads of it, learned call by call."""

    import_line = "from types import SimpleNamespace"

    def __init__(self) -> None:
        self.__dict__["_answers"] = {}  # name -> index into ANSWERS (len: a stand-in)
        self.__dict__["_children"] = {}
        self.__dict__["_missed"] = []  # asked for and not answered, since the last call

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and repr's protocol: not the function's
            raise AttributeError(name)
        if name == "training":
            return False
        answers = self.__dict__["_answers"]
        if name not in answers:
            self.__dict__["_missed"].append(name)
            raise AttributeError(name)
        return self._answer(name, answers[name])

    def _answer(self, name: str, at: int) -> Any:
        if at < len(ANSWERS):
            return ANSWERS[at]
        return self.__dict__["_children"].setdefault(name, StandIn())

    def learn(self) -> bool:
        """After a failed call: answer what it asked for, else try the last answer's next;
        False when nothing is left to try."""
        answers, missed = self.__dict__["_answers"], self.__dict__["_missed"]
        if missed:
            answers.update(dict.fromkeys(missed, 0) | answers)
            missed.clear()
            return True
        for child in self.__dict__["_children"].values():
            if child.learn():
                return True
        last = next(reversed(answers), None)
        if last is None or answers[last] >= len(ANSWERS):
            return False
        answers[last] += 1
        return True

    def reset(self) -> None:
        """Forget every answer (another layout is tried from the start)."""
        self.__init__()

    def read(self) -> dict[str, Any]:
        """What the function read and was answered, `training` too."""
        said = {n: self._answer(n, at) for n, at in self.__dict__["_answers"].items()}
        return {**said, "training": False}

    def __repr__(self) -> str:
        return f"SimpleNamespace({', '.join(f'{n}={v!r}' for n, v in self.read().items())})"


def stand_ins(missing: list[str], positional: list[str], qkv: tuple[str, ...]) -> list[str]:
    """The missing parameters that come before q, k and v: the object the function belongs
    to (a module, a layer), which a stand-in can answer for; the rest cannot be made up."""
    first = min((positional.index(p) for p in qkv if p in positional), default=0)
    return [p for p in missing if p in positional[:first]]


def retrying(call: Any, standing: list[StandIn]) -> Any:
    """call(), again after each failure the stand-ins learn from, as `call` fails."""
    for s in standing:
        s.reset()
    for _ in range(TRIES):
        try:
            return call()
        except Exception:
            if not any(s.learn() for s in standing):
                raise
    return call()
