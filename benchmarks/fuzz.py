"""Fuzzing Runebook as an attacker would: dice strings, .rules text and YAML characters.

Inputs come from Hypothesis strategies: dice expressions built from the language's own
pieces (grammar-guided, after d20's ``custom_strategies``), ``.rules`` text generated from
declaration templates or made by mutating the shipped rulesets, and YAML from both random
characters and character-file shapes with aliases, deep nesting and huge numbers. Each
input runs through the real pipeline; the only exception allowed out is
:class:`~dsl.diagnostics.RunebookError`, and each input must finish within a time bound.

The normal test suite runs a short derandomized pass (``tests/test_fuzz_inputs.py``);
the long run is this script::

    python -m benchmarks.fuzz --minutes 30

It prints the inputs tried per target, every failure (with the input), the slowest input
and the process's peak memory.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from runebook.dsl.diagnostics import RunebookError  # noqa: E402

__all__ = ["TARGETS", "dice_text", "rules_text", "run_one", "yaml_text"]

# ---------------------------------------------------------------- strategies

_SIZES = st.sampled_from([0, 1, 2, 3, 4, 6, 8, 10, 12, 20, 100, 1000, 10**6, 10**7, 2**64])
_SMALL = st.integers(min_value=0, max_value=12) | _SIZES


@st.composite
def _die(draw: Any) -> str:
    count = draw(st.none() | _SMALL.map(str))
    sides = draw(_SMALL.map(str) | st.just("%") | st.just("F") | st.sampled_from(["d6", "6"]))
    text = f"{count or ''}d{sides}"
    for _ in range(draw(st.integers(0, 3))):
        mod = draw(st.sampled_from(["kh", "kl", "dh", "dl", "x", "!", "!!", "!p", "xo", "r", "ro", "u", "cs", "cf", "df",
                                    "mi", "ma", "min", "max"]))
        compare = draw(st.sampled_from(["", ">=", "<=", ">", "<", "="]))
        value = draw(st.none() | _SMALL.map(str))
        text += mod + compare + (value or "")
    return text


_ATOMS = st.one_of(_die(), _SMALL.map(str), st.sampled_from(["none", "true", "7M2", "x", "i", "1/3", "0.5"]))


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", ">=", "==", "<", "and", "or"]),
                       inner).map(" ".join)
    call = st.tuples(st.sampled_from(["highest", "lowest", "sum", "count", "max", "min", "any", "all", "floor",
                                      "range", "each", "len"]), st.lists(inner, min_size=1, max_size=3)).map(
        lambda t: f"{t[0]}({', '.join(t[1])})")
    conditional = st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} if {t[1]} else {t[2]}")
    # Lists made with 'for', which nest: a list of a thousand made in each of a thousand items.
    made = st.tuples(inner, _SMALL, st.sampled_from(["i", "j"])).map(
        lambda t: f"[{t[0]} for {t[2]} in range({t[1]})]")
    return st.one_of(binary, call, conditional, inner.map(lambda s: f"({s})"), inner.map(lambda s: f"-{s}"),
                     st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"), made)


_GRAMMAR_DICE = st.recursive(_ATOMS, _compound, max_leaves=8)

#: Large pools read die by die, the shapes the grammar-guided strategy rarely draws whole:
#: `highest(each(1000d100x>=5))` ran for 12 s.
_LARGE_POOLS = st.tuples(
    st.sampled_from(["highest", "lowest", "count", "sum", "any", "all"]),
    st.booleans(),
    st.sampled_from([100, 1000, 10000]),
    st.sampled_from([6, 20, 100, 1000]),
    st.sampled_from(["", "x>=5", "!", "!!", "!p", "xo", "r<50", "ro<50", "min50", "kh1", "kl1", "cs>=50"]),
    st.sampled_from(["", " >= 50", " * 2", " % 2 == 0"]),
).map(lambda t: f"{t[0]}({'each(' if t[1] else ''}{t[2]}d{t[3]}{t[4]}{')' if t[1] else ''}{t[5]})")
#: Several of them in one expression, in a list or made with 'for' (every world replays each
#: item's reading: `[all(each(100d1000cs>=50) % 2 == 0) for i in range(100)]` took 6 s to be
#: refused), in lists made in lists, joined by `and`, or as operator chains of dice terms
#: that each item folds again (`[d6 + d6 + d6 for i in range(10)]`).
_MANY_POOLS = st.one_of(
    st.lists(_LARGE_POOLS, min_size=2, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
    st.tuples(_LARGE_POOLS, st.sampled_from([2, 10, 100, 1000])).map(lambda t: f"[{t[0]} for i in range({t[1]})]"),
    st.tuples(_LARGE_POOLS, st.sampled_from([2, 10, 100]), st.sampled_from([2, 10, 100])).map(
        lambda t: f"[[{t[0]} for i in range({t[1]})] for j in range({t[2]})]"),
    st.tuples(_LARGE_POOLS, _LARGE_POOLS, st.sampled_from([10, 50, 100])).map(
        lambda t: f"[{t[0]} and {t[1]} for i in range({t[2]})]"),
    st.tuples(st.sampled_from(["d2", "d6", "d20", "10d6", "d%"]), st.integers(2, 4), st.sampled_from([2, 10, 100])).map(
        lambda t: f"[{' + '.join([t[0]] * t[1])} for i in range({t[2]})]"),
    st.tuples(st.sampled_from([10, 100, 1000]), st.sampled_from([10, 100, 1000])).map(
        lambda t: f"sum([sum([i * j for i in range({t[0]})]) for j in range({t[1]})])"),
)
_DICE_CHARS = st.text(alphabet="0123456789d%+-*/()!xkhlrocsfmiF<>=, .[]", max_size=30)
_HUGE = st.integers(4300, 6000).map(lambda n: "9" * n)


def dice_text() -> st.SearchStrategy[str]:
    """Dice expressions: grammar-guided, random characters of the dice alphabet, huge numbers,
    large pools read die by die and lists of them."""
    return st.one_of(_GRAMMAR_DICE, _GRAMMAR_DICE, _DICE_CHARS, st.tuples(_GRAMMAR_DICE, _HUGE).map("".join),
                     _LARGE_POOLS, _MANY_POOLS)


def _shipped_rules() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((REPO / "rulesets").rglob("*.rules"))]


_SHIPPED = _shipped_rules()


@st.composite
def _mutated(draw: Any) -> str:
    text = draw(st.sampled_from(_SHIPPED))
    lines = text.split("\n")
    start = draw(st.integers(0, max(len(lines) - 1, 0)))
    lines = lines[start : start + draw(st.integers(1, 80))]
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "indent", "dedent", "cut", "splice"]))
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "insert":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(st.text(max_size=6) | _GRAMMAR_DICE | _HUGE) + lines[i][at:]
        elif action == "indent":
            lines[i] = "  " + lines[i]
        elif action == "dedent":
            lines[i] = lines[i].lstrip()
        elif action == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        else:
            lines[i] = lines[i] + " " + draw(st.sampled_from(lines))
    return "\n".join(lines) + "\n"


_NAMES = st.sampled_from(["A", "B", "Fight", "Roll It", "x"])


@st.composite
def _declarations(draw: Any) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["function", "check", "procedure", "table", "levels", "option"]))
        name = draw(_NAMES)
        expr = draw(_GRAMMAR_DICE)
        if kind == "function":
            parts.append(f"function f{draw(st.integers(0, 3))}(n) = {expr}")
        elif kind == "check":
            parts.append(f"check {name} (n = {draw(_SMALL)})\n  roll dice = {draw(_die())}\n  result r = {expr}")
        elif kind == "procedure":
            body = draw(st.lists(st.sampled_from([
                f"let v = {expr}", f"roll d = {draw(_die())}", "set v = v * v", "set v = v + 1",
                f"for each i in range(1, {draw(_SMALL)})", "  set v = v + i", f"do {name}(1) as inner",
                "goto top", "step top", f"if {expr}", "  end", f"result r = {expr}"]), max_size=8))
            parts.append(f"procedure {name} (x = 1)\n" + "\n".join("  " + line for line in body))
        elif kind == "table":
            parts.append(f"table T{name}: 0 Fail | 1 Low | {draw(_SMALL)}+ High")
        elif kind == "levels":
            parts.append(f"levels L{name}: a < b < c")
        else:
            parts.append(f"option o{name}: a | b = a")
    return "\n\n".join(parts) + "\n"


def rules_text() -> st.SearchStrategy[str]:
    """.rules text: declarations from templates, and mutations of the shipped rulesets."""
    return st.one_of(_declarations(), _mutated(), st.text(max_size=200))


_YAML_SCALARS = st.one_of(st.integers(-5, 30).map(str), _HUGE, st.sampled_from(
    ["~", "null", "yes", "2026-13-45", "!!python/object:os.system", "*x", "&x 1", "'a'", '"\\x00"', "1e999",
     "0x" + "f" * 40, ".inf", "[", "{"]), st.text(max_size=12))


@st.composite
def _character(draw: Any) -> str:
    lines = [f"name: {draw(_YAML_SCALARS)}", "stats:"]
    for stat in draw(st.lists(st.sampled_from(["might", "grace", "wits", "Weapon", "Defense"]), max_size=4)):
        lines.append(f"  {stat}: {draw(_YAML_SCALARS)}")
    if draw(st.booleans()):
        depth = draw(st.integers(1, 400))
        lines.append("powers: " + "[" * depth + "x" + "]" * depth)
    if draw(st.booleans()):
        levels = draw(st.integers(1, 9))
        lines.append("conditions:")
        lines.append("  - &a0 [x, x, x, x, x, x, x, x, x]")
        for i in range(1, levels):
            lines.append(f"  - &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def yaml_text() -> st.SearchStrategy[str]:
    """YAML: character-file shapes (aliases, nesting, odd scalars) and random characters."""
    return st.one_of(_character(), st.text(alphabet=":-[]{}&*!|>'\"#\n abc019.", max_size=120), st.text(max_size=60))


# ---------------------------------------------------------------- targets


def _dice(text: str) -> None:
    from runebook.interpreter import api

    api.roll(text, seed=1)
    api.odds(text)


_FOLDER = Path(tempfile.mkdtemp(prefix="runebook-fuzz-"))


def _rules(text: str) -> None:
    from runebook.dsl.loader import _load_folder
    from runebook.interpreter.cli.main import main

    folder = _FOLDER / "game"
    folder.mkdir(exist_ok=True)
    (folder / "fuzz.rules").write_text(text, encoding="utf-8", errors="surrogatepass")
    _load_folder.cache_clear()
    with open(os.devnull, "w") as sink:
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = sink
        try:
            code = main(["check", str(folder)])
        finally:
            sys.stdout, sys.stderr = saved
    if code not in (0, 1, 2):
        raise AssertionError(f"runebook check exited {code}")


_MESTEZIA: list[Any] = []


def _yaml(text: str) -> None:
    from runebook.interpreter.rules import load

    if not _MESTEZIA:
        _MESTEZIA.append(load("mestezia"))
    path = _FOLDER / "character.yaml"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    rules = _MESTEZIA[0]
    for entity in rules.entities(path)[:1]:
        rules.run("Berserker Charge", seed=1, as_=entity)


TARGETS: dict[str, tuple[Callable[[], st.SearchStrategy[str]], Callable[[str], None]]] = {
    "dice": (dice_text, _dice),
    "rules": (rules_text, _rules),
    "yaml": (yaml_text, _yaml),
}


def run_one(target: str, text: str) -> tuple[float, float, BaseException | None]:
    """Run one input: (wall seconds, CPU seconds, the exception if it was not a RunebookError)."""
    saved = os.environ.get("RUNEBOOK_DEBUG")
    os.environ["RUNEBOOK_DEBUG"] = "1"  # the command line re-raises instead of exiting 3
    wall, cpu = time.perf_counter(), time.process_time()
    error: BaseException | None = None
    try:
        TARGETS[target][1](text)
    except RunebookError:
        pass
    except Exception as caught:  # noqa: BLE001 - exactly what the fuzzer looks for
        error = caught
    finally:
        if saved is None:
            del os.environ["RUNEBOOK_DEBUG"]
        else:
            os.environ["RUNEBOOK_DEBUG"] = saved
    return time.perf_counter() - wall, time.process_time() - cpu, error


# ---------------------------------------------------------------- the long run


class _Stats:
    def __init__(self) -> None:
        self.tried: dict[str, int] = {name: 0 for name in TARGETS}
        self.failures: list[tuple[str, str, str]] = []
        self.slow: list[tuple[str, str, float]] = []
        self.slowest: tuple[float, str, str] = (0.0, "", "")


def _batch(target: str, stats: _Stats, deadline: float, seed: int, examples: int, slow_limit: float) -> None:
    strategy, _ = TARGETS[target]

    @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy())
    def probe(text: str) -> None:
        if time.monotonic() > deadline:
            return
        seconds, _cpu, error = run_one(target, text)
        stats.tried[target] += 1
        if seconds > stats.slowest[0]:
            stats.slowest = (seconds, target, text)
        if seconds > slow_limit:
            stats.slow.append((target, text, seconds))
        if error is not None:
            stats.failures.append((target, text, "".join(traceback.format_exception(error))[-1500:]))

    random.seed(seed)
    probe._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    probe()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fuzz dice strings, .rules text and YAML for a while.")
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to run (default 1)")
    parser.add_argument("--targets", default="dice,rules,yaml", help="comma-separated: dice, rules, yaml")
    parser.add_argument("--slow", type=float, default=2.0, help="seconds over which an input counts as slow")
    args = parser.parse_args(argv)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    stats = _Stats()
    started = time.monotonic()
    deadline = started + args.minutes * 60
    seed = 0
    while time.monotonic() < deadline:
        for target in targets:
            _batch(target, stats, deadline, seed, 200, args.slow)
            seed += 1
    elapsed = time.monotonic() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = sum(stats.tried.values())
    print(f"ran {elapsed / 60:.1f} min: {total:,} inputs tried "
          + ", ".join(f"{name} {count:,}" for name, count in stats.tried.items()))
    print(f"failures (an exception other than RunebookError): {len(stats.failures)}")
    for target, text, error in stats.failures[:20]:
        print(f"--- {target}: {text[:300]!r}\n{error}")
    print(f"inputs over {args.slow:g} s: {len(stats.slow)}")
    for target, text, seconds in stats.slow[:10]:
        print(f"  {seconds:.2f} s {target}: {text[:200]!r}")
    seconds, target, text = stats.slowest
    print(f"slowest input: {seconds:.2f} s ({target}): {text[:200]!r}")
    print(f"peak memory of the process: {peak_mb:.0f} MB")
    return 1 if stats.failures or stats.slow else 0


if __name__ == "__main__":
    sys.exit(main())
