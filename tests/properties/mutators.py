"""Ways to damage card text, shared by the hypothesis mutation test and the card fuzzer.

Each operator takes the text and a :class:`Chooser` (where its random choices come
from) and returns the damaged text. The hypothesis test (``test_mutations.py``) draws
its choices through hypothesis, so failures shrink; the fuzzer of the shipped cards
(``card_fuzz.py``) draws them from a seeded ``random.Random``, so ten thousand mutants
run without hypothesis' bookkeeping and each can be replayed from its seed.

Two families: damage people and attackers do to any file (delete, duplicate or indent a
line, swap or replace characters, insert YAML or injection tokens, cut the file short)
and damage aimed at the card language (numbers made 0, -1, huge, tiny, NaN, infinite or
absurdly long; operators, function names, kinds and units swapped for others; adjacent
tokens swapped).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from hypothesis import strategies as st

from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.kinds.interventions import INTERVENTIONS
from scmspec.compiler.kinds.mechanisms import MECHANISMS  # noqa: F401 (all kinds registered)
from scmspec.compiler.kinds.noise import NOISE
from scmspec.compiler.kinds.roots import ROOTS

T = TypeVar("T")


class Chooser(Protocol):
    """Where a mutation's random choices come from."""

    def integer(self, low: int, high: int) -> int: ...

    def choice(self, options: Sequence[T]) -> T: ...


class RandomChooser:
    """Choices from a seeded ``random.Random`` (the fuzzer: fast, replayable by seed)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]


class DrawChooser:
    """Choices drawn through hypothesis (the property tests: failures shrink)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def choice(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(list(options)))


TOKENS = ("\t", ":", ": ", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "<<: *a\n",
          "!!python/object/apply:os.system ['true'] ", "!!binary ", "'", '"', "#",
          "__import__('os')", "x.__class__", "9**9**9**9",
          "lambda: 0", "(((((", "1e999", ".nan", "-.inf", "~", "null", "\u00e9", "\x00",
          "kind: ", "equation: ", "unit: m", "observed: false", "\n  zz: {meaning: q}\n")
NUMBER = re.compile(r"(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?(?![\w.])")
# What a number may become: the edges of float64 and of each parameter's domain.
NUMBERS = ("0", "-1", "1", "2", "0.5", "-0.5", "1e300", "-1e300", "1e-300", "1e308", "-1e308",
           "1e18", "1000000", ".nan", ".inf", "-.inf", "9" * 120, "0x" + "f" * 60, "1:30:00",
           "1e400", "4.9e-324")
WORDS = ("lots", "'1.5'", "[]", "{}", "true", "1e400", "-1", "0")
OPERATORS = (" + ", " - ", " * ", " / ", " ** ", " % ", " // ", " < ", " > ", " == ", " != ",
             " and ", " or ", " <= ")
OPERATOR = re.compile(r" (\+|-|\*\*|\*|/|<=|>=|<|>|==) ")
FUNCTION_NAMES = tuple(sorted(FUNCTIONS)) + ("pi", "nope", "eval", "__import__")
FUNCTION_CALL = re.compile(r"\b(" + "|".join(sorted(FUNCTIONS, key=len, reverse=True)) + r")\(")
KINDS = tuple(sorted({*ROOTS, *NOISE, *INTERVENTIONS, *MECHANISMS, "continuous", "binary",
                      "count", "ordinal", "categorical", "bogus"}))
KIND = re.compile(r"(?<=kind: )[\w]+")
UNITS = ("m", "s", "kg", "percent", "degC", "K", "1/day", "Gpc**12", "fm**12", "USD", "EUR",
         "count", "dimensionless", "hPa", "Pa", "m**2", "m**99", "dB", "100*Pa", "delta_degC",
         "", "1/0")
UNIT = re.compile(r"(?<=unit: )[^,}\n]+")
TOKEN = re.compile(r"[\w.]+")


def _lines(text: str, chooser: Chooser) -> tuple[list[str], int]:
    lines = text.split("\n")
    return lines, chooser.integer(0, max(0, len(lines) - 1))


def _replace_match(pattern: re.Pattern[str], options: Sequence[str]
                   ) -> Callable[[str, Chooser], str]:
    """An operator replacing one match of ``pattern`` by one of ``options``."""

    def mutate(text: str, chooser: Chooser) -> str:
        found = list(pattern.finditer(text))
        if not found:
            return text
        m = chooser.choice(found)
        return text[:m.start()] + chooser.choice(options) + text[m.end():]

    return mutate


def delete_line(text: str, chooser: Chooser) -> str:
    lines, i = _lines(text, chooser)
    return "\n".join(lines[:i] + lines[i + 1:])


def duplicate_line(text: str, chooser: Chooser) -> str:
    lines, i = _lines(text, chooser)
    return "\n".join(lines[:i + 1] + lines[i:])


def indent(text: str, chooser: Chooser) -> str:
    lines, i = _lines(text, chooser)
    lines[i] = chooser.choice(["  ", " ", "\t"]) + lines[i]
    return "\n".join(lines)


def _at(text: str, chooser: Chooser) -> int:
    return chooser.integer(0, max(0, len(text) - 2))


def swap(text: str, chooser: Chooser) -> str:
    k = _at(text, chooser)
    return text[:k] + text[k + 1:k + 2] + text[k:k + 1] + text[k + 2:]


def insert(text: str, chooser: Chooser) -> str:
    k = _at(text, chooser)
    return text[:k] + chooser.choice(TOKENS) + text[k:]


def replace_char(text: str, chooser: Chooser) -> str:
    k = _at(text, chooser)
    return text[:k] + chooser.choice("x0_ -:{[(*/.\t") + text[k + 1:]


def truncate(text: str, chooser: Chooser) -> str:
    return text[:_at(text, chooser)]


def swap_tokens(text: str, chooser: Chooser) -> str:
    """Swap two neighbouring words or numbers of one line (``a * b`` -> ``b * a``)."""
    lines, i = _lines(text, chooser)
    found = list(TOKEN.finditer(lines[i]))
    if len(found) < 2:
        return text
    j = chooser.integer(0, len(found) - 2)
    a, b, line = found[j], found[j + 1], lines[i]
    lines[i] = (line[:a.start()] + b.group() + line[a.end():b.start()] + a.group()
                + line[b.end():])
    return "\n".join(lines)


GENERIC: dict[str, Callable[[str, Chooser], str]] = {
    "delete_line": delete_line, "duplicate_line": duplicate_line, "swap": swap,
    "number_to_word": _replace_match(NUMBER, WORDS), "insert": insert, "truncate": truncate,
    "replace_char": replace_char, "indent": indent,
}
AIMED: dict[str, Callable[[str, Chooser], str]] = {
    "number": _replace_match(NUMBER, NUMBERS), "operator": _replace_match(OPERATOR, OPERATORS),
    "function": lambda text, c: _replace_match(FUNCTION_CALL, [f + "(" for f in
                                                                FUNCTION_NAMES])(text, c),
    "kind": _replace_match(KIND, KINDS), "unit": _replace_match(UNIT, UNITS),
    "swap_tokens": swap_tokens, "delete_line": delete_line, "duplicate_line": duplicate_line,
}


def mutate(text: str, chooser: Chooser, operators: dict[str, Callable[[str, Chooser], str]],
           rounds: tuple[int, int] = (1, 3)) -> str:
    """Apply between ``rounds[0]`` and ``rounds[1]`` operators, each chosen at random."""
    for _ in range(chooser.integer(*rounds)):
        text = operators[chooser.choice(sorted(operators))](text, chooser)
    return text
