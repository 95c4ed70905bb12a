"""Over-large work is refused quickly, with a code naming the limit (issue 15).

Each case ran for seconds to minutes, exhausted memory or crashed (exit 3) before the work
budget. Times are CPU seconds of this process, so a busy machine does not make them flaky;
the bound is the issue's 1.5 s.
"""

from __future__ import annotations

import itertools
import resource
import time
from fractions import Fraction
from pathlib import Path

import attrs
import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter import api
from runebook.interpreter.core.limits import DEFAULT_LIMITS, Limits, parse_limit
from runebook.interpreter.rules import load

FIB = """\
function fib(n) = n if n < 2 else fib(n - 1) + fib(n - 2)

check Grow (n = 25)
  roll d = 1d6
  result v = fib(n)
"""

PROCEDURES = """\
procedure Square (x = 3)
  let n = x
  for each i in range(1, 60)
    set n = n * n
  result value = n

procedure Sum Many (count = 20)
  let total = 0
  for each i in range(1, count)
    roll d = 1d1000
    set total = total + d
  result total = total

procedure Sum Few (count = 3)
  let total = 0
  for each i in range(1, count)
    roll d = 1d6
    set total = total + d
  result total = total
"""


def _refused(call, code: str, name: str, seconds: float = 30) -> str:  # type: ignore[no-untyped-def]
    """The refusal of ``call``, its diagnostic's text. ``seconds`` guards against a refusal
    that never comes; how soon it comes (the 1.5 s goal) is measured by bench_hostile.py,
    not asserted on a shared machine."""
    started = time.process_time()
    with pytest.raises(RunebookError) as error:
        call()
    assert time.process_time() - started < seconds
    (diagnostic,) = error.value.diagnostics[:1]
    text = str(error.value)
    assert diagnostic.code == code, text
    assert name in text, text
    return text


@pytest.mark.parametrize("expr", ["1000d6kh500", "1d1000000", "highest(7d100!!)", "20d%x>=9kh10"])
def test_large_exact_odds_are_refused_quickly(expr: str) -> None:
    api.odds("2d6 * 2")  # the grammar, built or loaded, is not part of the time (plain sums skip it)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code = "E0415"
    name = "max_support" if expr == "1d1000000" else "max_work"
    _refused(lambda: api.odds(expr), code, name)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200


def test_the_faces_of_all_dice_terms_are_bounded_before_any_is_read() -> None:
    """Each term's rules are read face by face: a dozen d1000000 terms (found by the fuzz
    run: 1.9 s before E0411) are refused at the third, whatever they are used for."""
    fuzzed = "-11d1000000ro>=0ro>= if [11d1000000ro>=0cs>=, 11d1000000ro>=0cs>=] else [11d1000000ro>=0cs>=, 1/3]"
    text = _refused(lambda: api.odds(fuzzed), "E0411", "never stops")
    assert "E0901" in text and "2,000,000 faces" in text
    _refused(lambda: api.roll("d1000000 + d1000000 + d6"), "E0901", "2,000,000 faces")
    assert api.roll("d1000000 + d1000000", seed=1).total >= 2  # two of the largest die still roll


@pytest.mark.parametrize("expr", ["-(sum(12, 12, 20d1000dlro10000000!!<=6))", "8d%!p>=9"])
def test_the_second_fuzz_runs_slow_refusals_are_refused(expr: str) -> None:
    """Found by the second 30-minute fuzz run (2.6 to 3.7 s of CPU before E0415): keeping
    dice over exploding faces counts each way of splitting the dice as it goes, and a
    penetrating die's chain is summed in whole numbers (bench_hostile.py times them)."""
    _refused(lambda: api.odds(expr), "E0415", "max_work")


def test_the_work_of_a_sum_is_foreseen_before_it_is_done() -> None:
    """A sum the power series does not take (penetrating dice: each explosion adds one less)
    is folded die by die, and that fold's work is foreseen from the dice's outcomes: 4d6!p at
    about 123,066 pairs of sums and faces at most. Past twice max_work it is refused before
    the fold starts; within that margin the work itself is counted (here it fits). Sums the
    series takes count their own work: 1000d6 is exact, 3000d6 is refused."""
    def odds_with(most: int):  # type: ignore[no-untyped-def]
        return api.odds("4d6!p", limits=attrs.evolve(DEFAULT_LIMITS, max_work=most))
    assert "foreseen (about 123,066)" in _refused(lambda: odds_with(61_532), "E0415", "max_work")
    assert sum(odds_with(61_533).values()) == 1
    assert "steps foreseen" in _refused(lambda: api.odds("8d%!p"), "E0415", "max_work")
    assert api.odds("1000d6")[3500] > 0
    assert "foreseen" not in _refused(lambda: api.odds("3000d6"), "E0415", "max_work")


def test_an_exponential_function_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fib.rules").write_text(FIB)
    rules = load(str(tmp_path))
    text = _refused(lambda: rules.resolve("Grow", seed=1), "E0902", "max_calls")
    assert "fib(n - 1)" in text  # the caret line
    assert rules.resolve("Grow", seed=1, n=15).results["v"] == 610


def test_a_growing_procedure_is_refused(tmp_path: Path) -> None:
    (tmp_path / "p.rules").write_text(PROCEDURES)
    rules = load(str(tmp_path))
    _refused(lambda: rules.run("Square", seed=1), "E0903", "max_digits")
    assert rules.run("Square", seed=1, x=1).results["value"] == 1


def test_procedure_odds_are_bounded(tmp_path: Path) -> None:
    (tmp_path / "p.rules").write_text(PROCEDURES)
    small = load(str(tmp_path), attrs.evolve(DEFAULT_LIMITS, max_worlds=3_000))
    _refused(lambda: small.odds("Sum Many"), "E0904", "max_worlds")
    # Three d6 summed (range(1, 4) is 1, 2 and 3), within the limit, against enumeration.
    rules = load(str(tmp_path))
    odds = rules.odds("Sum Few", count=4).results["total"]
    expected: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=3):
        expected[sum(faces)] = expected.get(sum(faces), Fraction(0)) + Fraction(1, 216)
    assert dict(odds) == expected


def test_procedure_odds_whose_states_multiply_are_refused_before_the_work(tmp_path: Path) -> None:
    """Twenty `1d1000` summed: a thousand states wait after each roll, each foreseen at the
    thousand runs the segments at their place took; refused after about 9,000 runs, not
    after 50,000 (2-4 s)."""
    (tmp_path / "p.rules").write_text(PROCEDURES)
    rules = load(str(tmp_path))
    rules.odds("Sum Few")  # loading is not part of the time
    text = _refused(lambda: rules.odds("Sum Many"), "E0904", "max_worlds")
    assert "foreseen" in text


def test_procedure_odds_within_the_limit_are_not_refused_by_the_forecast(tmp_path: Path) -> None:
    """Four d6 summed take 247 runs of a segment: under a limit of 247 the forecast lets them
    through (the sum's odds against enumeration); at 246 the runs counted refuse them."""
    (tmp_path / "p.rules").write_text(PROCEDURES)
    rules = load(str(tmp_path), attrs.evolve(DEFAULT_LIMITS, max_worlds=247))
    odds = rules.odds("Sum Few", count=5).results["total"]
    expected: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=4):
        expected[sum(faces)] = expected.get(sum(faces), Fraction(0)) + Fraction(1, 6**4)
    assert dict(odds) == expected
    tight = load(str(tmp_path), attrs.evolve(DEFAULT_LIMITS, max_worlds=246))
    assert "foreseen" not in _refused(lambda: tight.odds("Sum Few", count=5), "E0904", "max_worlds")


def test_limits_from_the_api_and_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "fib.rules").write_text(FIB)
    run = cli("resolve", str(tmp_path), "Grow", "--seed", "1", "--with", "n=20", "--limit", "max_calls=30000")
    assert run.code == 0 and "v: 6765" in run.stdout
    run = cli("resolve", str(tmp_path), "Grow", "--seed", "1", "--with", "n=12", "--limit", "calls=100")
    assert run.code == 1 and "E0902" in run.stderr and "max_calls = 100" in run.stderr
    run = cli("odds", "3d6", "--limit", "max_work=10")
    assert run.code == 1 and "max_work = 10 " in run.stderr
    run = cli("roll", "1d6", "--limit", "nonsense=3")
    assert run.code == 2 and "unknown limit" in run.stderr
    assert parse_limit("max_support=1_000", DEFAULT_LIMITS).max_support == 1000
    with pytest.raises(ValueError):
        parse_limit("max_support=0", DEFAULT_LIMITS)
    assert api.odds("2d6", limits=attrs.evolve(DEFAULT_LIMITS, max_support=20))[7] == Fraction(1, 6)


@pytest.mark.parametrize(("name", "value"), [("max_states", -1), ("max_work", "5"), ("max_dice", True),
                                             ("max_support", 0), ("max_calls", 2.5), ("max_worlds", 10 ** 12),
                                             ("max_explosion_depth", -1)])
def test_an_embedders_limits_are_refused_where_they_are_made(name: str, value: object) -> None:
    # A negative or textual limit would otherwise be compared deep inside a computation (a
    # TypeError there, or every computation refused at once).
    with pytest.raises(ValueError, match=name):
        attrs.evolve(DEFAULT_LIMITS, **{name: value})
    with pytest.raises(ValueError, match=name):
        Limits(**{name: value})  # type: ignore[arg-type]


def test_an_explosion_depth_of_zero_is_a_limit_and_from_the_command_line_too(cli) -> None:  # type: ignore[no-untyped-def]
    # 0 is a depth (no explosion followed: what lies beyond is the tail); other limits start at 1.
    assert parse_limit("max_explosion_depth=0", DEFAULT_LIMITS).max_explosion_depth == 0
    run = cli("odds", "1d6x", "--limit", "max_explosion_depth=0")
    assert run.code == 0 and "6+" in run.stdout, run.stderr


@pytest.mark.parametrize("text", ["1d" + "9" * 5000, "9" * 5000 + " + 1", "-" + "7" * 4400])
def test_numbers_past_python_conversion_limit_are_diagnostics(cli, text: str) -> None:  # type: ignore[no-untyped-def]
    run = cli("roll", "--", text)
    assert run.code == 1 and "E0119" in run.stderr and "internal error" not in run.stderr


def test_a_large_number_in_a_rules_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "x.rules").write_text("function big() = " + "8" * 4400 + "\n")
    run = cli("check", str(tmp_path))
    assert run.code == 1 and "x.rules:1:18: E0119 a number of 4,400 digits" in run.stderr


def test_results_too_large_to_print_are_refused() -> None:
    big = "9" * 900
    _refused(lambda: api.roll(f"{big} * {big}"), "E0903", "max_digits")
    _refused(lambda: api.roll(f"{big} / 7 * {big} / 11"), "E0903", "max_digits")
    assert api.roll(f"{big} + {big}").total == 2 * int(big)


def _enumerate_reroll_explode(sides: int, explode: set[int], reroll: set[int], depth: int = 6) -> dict[int, Fraction]:
    """One die rerolled (until not in ``reroll``) then exploding on ``explode``, by brute force."""
    faces = [f for f in range(1, sides + 1) if f not in reroll]
    out: dict[int, Fraction] = {}
    for n in range(1, depth + 1):
        for chain in itertools.product(faces, repeat=n):
            if all(f in explode for f in chain[:-1]) and chain[-1] not in explode:
                p = Fraction(1, len(faces) ** n)
                out[sum(chain)] = out.get(sum(chain), Fraction(0)) + p
    return out


@pytest.mark.parametrize(("expr", "sides", "explode", "reroll"), [
    ("d2x1r1", 2, {1}, {1}),
    ("d3x1r1", 3, {1}, {1}),
    ("d4x2r1r2", 4, {2}, {1, 2}),
    ("d6x>=5r>=5", 6, {5, 6}, {5, 6}),
])
def test_explosions_made_impossible_by_rerolls(expr: str, sides: int, explode: set[int], reroll: set[int]) -> None:
    assert dict(api.odds(expr)) == _enumerate_reroll_explode(sides, explode, reroll)


@pytest.mark.parametrize("expr", ["d1x1", "d6r<=6", "count(d1!>=1)", "2d2x2r1kh1"])
def test_dice_that_never_stop_are_diagnostics(expr: str) -> None:
    with pytest.raises(RunebookError) as error:
        api.odds(expr)
    assert error.value.diagnostics[0].code in {"E0407", "E0411"}


def test_a_long_chain_of_procedures_is_refused_without_recursion(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = []
    for i in range(1000):
        lines.append(f"procedure P{i} (x = 1)")
        if i + 1 < 1000:
            lines.append(f"  do P{i + 1}(x) as inner")
        lines += ["  result v = x", ""]
    (tmp_path / "c.rules").write_text("\n".join(lines))
    started = time.process_time()
    run = cli("check", str(tmp_path))
    assert time.process_time() - started < 60  # a guard against a hang, not a timing test
    assert run.code == 1 and "E0630" in run.stderr and "RecursionError" not in run.stderr
    assert "internal error" not in run.stderr


def test_a_short_chain_of_procedures_works(tmp_path: Path) -> None:
    lines = []
    for i in range(20):
        lines.append(f"procedure P{i} (x = 1)")
        if i + 1 < 20:
            lines.append(f"  do P{i + 1}(x + 1) as inner")
            lines.append("  result v = inner.v")
        else:
            lines.append("  result v = x")
        lines.append("")
    (tmp_path / "c.rules").write_text("\n".join(lines))
    assert load(str(tmp_path)).run("P0", seed=1).results["v"] == 20


def test_the_parse_cache_counts_each_small_file_at_its_floor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A process loading many small files (a bot fed homebrew, the fuzzer) kept every parse
    # while their texts fitted the cache's 8 MiB: 80,000 trees, about a gigabyte. Each file
    # now counts at least _PARSED_FLOOR characters.
    from collections import OrderedDict

    from runebook.dsl import loader
    from runebook.dsl.diagnostics import DiagnosticSink

    monkeypatch.setattr(loader, "_PARSED", OrderedDict())
    monkeypatch.setattr(loader, "_PARSED_CHARS", 10 * loader._PARSED_FLOOR)
    trees = []
    for k in range(30):
        path = tmp_path / f"f{k}.rules"
        path.write_text(f"function f{k}(x) = x + {k}\n")
        parsed = loader._parse(path, DiagnosticSink())
        assert parsed is not None
        trees.append(parsed[1])
    assert len(loader._PARSED) == 10
    # The latest are kept: reading one again gives the same tree, not a new parse.
    again = loader._parse(tmp_path / "f29.rules", DiagnosticSink())
    assert again is not None and again[1] is trees[-1]


def test_big_dice_leave_no_faces_or_options_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    # A bot asked for ever new `d1000000` texts kept each compiled expression (~38 MB of
    # faces) in the text cache, and each big pool's options in the options cache.
    from runebook.interpreter.core import distribution, evaluate
    from runebook.interpreter.core.sized import SizedCache

    for k in range(3):
        api.roll(f"d{200_000 - k}+{k}", seed=1)
    texts = [text for text, _, _ in evaluate._TEXTS.values]
    assert not any(text.startswith("d199") or text.startswith("d200") for text in texts)
    api.roll("2d6+1", seed=1)
    assert any(text == "2d6+1" for text, _, _ in evaluate._TEXTS.values)
    # The options cache, made small: a pool with more than a quarter of what it holds is not
    # kept, and what it holds stays within its bound.
    monkeypatch.setattr(distribution, "_OPTIONS", SizedCache(256, 400, 100, len))
    api.odds("d200")
    assert not distribution._OPTIONS.values
    for sides in range(20, 110, 10):
        api.odds(f"d{sides}")
    held = distribution._OPTIONS
    assert held.held == sum(len(options) for options, _ in held.values.values()) <= 400
    assert len(held.values) < 9  # the oldest were dropped (540 options asked)
    api.odds("3d6")
    assert any(len(options) == 16 for options, _ in held.values.values())
