"""One loaded ruleset shared by several threads gives every call the answer it gives alone.

For each game a mix of cheap calls (odds of checks and procedures, resolutions with given
dice or a seed, runs of procedures, and calls that fail part-way) runs from 8 threads, 12
calls each, on one object from ``interpreter.load``; every result (or the codes of the
error) must equal that of the same call made alone on another freshly loaded copy. The
thread switch interval is made tiny so that threads interleave inside runs.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from runebook import interpreter
from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.markov.chains import FixedDriver
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint, ScriptedDriver
from runebook.rulesets import RULESETS_DIR

THREADS = 8
CALLS = 12

MESTEZIA = RULESETS_DIR / "mestezia" / "examples"
#: Entities a game's calls use, by name: a file name in the game's examples, or YAML text.
ENTITIES: dict[str, dict[str, str]] = {
    "mestezia": {"itzel": "itzel.yaml", "inquisitor": "inquisitor.yaml", "xochitl": "xochitl.yaml",
                 "cultist": "cultist.yaml",
                 "poor": (MESTEZIA / "itzel.yaml").read_text(encoding="utf-8").replace("CP: 6", "CP: 3")},
    "questworlds": {"hero": "name: Test Hero\nstats:\n  Ability: 12\n"},
}

Call = Callable[[Any, dict[str, Any]], Any]

# Each call: (label, function of the rules and its entities). Calls marked "fails" raise a
# RunebookError part-way (while rolling, inside an exact-odds enumeration, mid-procedure).
CALLS_BY_GAME: dict[str, list[tuple[str, Call]]] = {
    "mezzo": [
        ("odds action", lambda r, e: r.odds("action check", action_votes=2, failure_votes=1)),
        ("odds action d6", lambda r, e: r.odds("action check", action_votes=3, failure_votes=2,
                                               options={"tiebreaker_die": "six_sided"})),
        ("odds major", lambda r, e: r.odds("major action", action_votes=2, opposing_votes=2)),
        ("odds tiebreaker", lambda r, e: r.odds("tiebreaker")),
        ("resolve dice", lambda r, e: r.resolve("action check", dice=[3, 4, 4], action_votes=6, failure_votes=3)),
        ("resolve seed", lambda r, e: r.resolve("action check", seed=5, action_votes=4, failure_votes=2)),
        ("run seed", lambda r, e: r.run("major action", seed=3, action_votes=3, opposing_votes=3)),
        ("fails: dice run out", lambda r, e: r.resolve("action check", dice=[3], action_votes=6, failure_votes=3)),
    ],
    "mestezia": [
        ("odds skill", lambda r, e: r.odds("skill check", modifier=2, threshold=10, aid=3)),
        ("odds power", lambda r, e: r.odds("Berserker Charge", as_=e["itzel"], against=e["inquisitor"])),
        ("odds sleep", lambda r, e: r.odds("Sleep", as_=e["xochitl"], against=e["cultist"], skills=3)),
        ("run power dice", lambda r, e: r.run("Berserker Charge", as_=e["itzel"], against=e["inquisitor"],
                                              dice=[6, 7, 9])),
        ("run power seed", lambda r, e: r.run("Berserker Charge", as_=e["itzel"], against=e["inquisitor"], seed=4)),
        ("resolve seed", lambda r, e: r.resolve("skill check", seed=9, modifier=3, threshold=9)),
        ("run take damage", lambda r, e: r.run("take damage", as_=e["itzel"], amount=5)),
        ("fails: run cannot pay", lambda r, e: r.run("Berserker Charge", as_=e["poor"], against=e["inquisitor"],
                                                     dice=[6, 7, 9])),
        ("fails: odds cannot pay", lambda r, e: r.odds("Berserker Charge", as_=e["poor"], against=e["inquisitor"])),
    ],
    "d10-pool": [
        ("odds action", lambda r, e: r.odds("action", pool=3, difficulty=2)),
        ("odds action gated", lambda r, e: r.odds("action", pool=4, difficulty=2, enhancement=1,
                                                  options={"enhancement_gate": "meet_difficulty"})),
        ("odds contested", lambda r, e: r.odds("contested action", pool=2, defender_pool=2)),
        ("resolve dice", lambda r, e: r.resolve("action", dice=[9, 2, 3], pool=3, difficulty=3, enhancement=2)),
        ("resolve seed", lambda r, e: r.resolve("action", seed=12, pool=6, difficulty=2)),
        ("run seed", lambda r, e: r.run("contested action", seed=1, pool=4, defender_pool=3)),
        ("fails: dice run out", lambda r, e: r.resolve("action", dice=[9], pool=3)),
    ],
    "mettle": [
        ("odds check", lambda r, e: r.odds("check", pool=3, difficulty=4)),
        ("odds twist", lambda r, e: r.odds("twist", kept_score=2, edge_dice=3, difficulty=5)),
        ("odds check option", lambda r, e: r.odds("check", pool=4, difficulty=5,
                                                  options={"success_comparison": "beats"})),
        ("resolve dice", lambda r, e: r.resolve("check", dice=[4, 1, 3, 5, 2, 2], pool=6, difficulty=8)),
        ("run seed", lambda r, e: r.run("check", seed=2, pool=5, difficulty=5)),
        ("fails: dice run out", lambda r, e: r.resolve("check", dice=[4, 1], pool=6, difficulty=8)),
    ],
    "questworlds": [
        ("odds against roll", lambda r, e: r.odds("against roll", ability=15, resistance=14)),
        ("odds hero contest", lambda r, e: r.odds("hero contest", as_=e["hero"], resistance=14,
                                                  answers={"hero_point": "use"})),
        ("odds augment", lambda r, e: r.odds("rolled augment", augmenting=17, hero_points=1)),
        ("resolve dice", lambda r, e: r.resolve("contest", dice=[3, 10], ability=15, resistance=14)),
        ("resolve seed", lambda r, e: r.resolve("contest", seed=7, ability="5M", resistance=14)),
        ("run scored", lambda r, e: r.run(
            "scored contest", dice=[3, 10, 17, 2, 2, 18, 9, 9, 20, 5, 1, 20, 4, 12], ability=15, resistance=14,
            driver=ScriptedDriver(["normal", "defensive_response", "risky_gambit", "normal", "normal",
                                   "risky_gambit", "attempt"]))),
        ("run hero seed", lambda r, e: r.run("hero contest", seed=3, as_=e["hero"], resistance=14,
                                             driver=FixedDriver({"hero_point": "use"}))),
        ("fails: odds without an actor", lambda r, e: r.odds("hero contest", ability=15, resistance=14)),
        ("fails: odds of a check", lambda r, e: r.odds("hero point boost", heroes=0)),
    ],
}


def _entities(rules: Any, game: str, tmp_path: Path) -> dict[str, Any]:
    found = {}
    for name, given in ENTITIES.get(game, {}).items():
        if given.endswith(".yaml"):
            path = RULESETS_DIR / game / "examples" / given
        else:
            path = tmp_path / f"{game}-{name}.yaml"
            path.write_text(given, encoding="utf-8")
        found[name] = rules.entity(str(path))
    return found


def _outcome(call: Call, rules: Any, entities: dict[str, Any]) -> Any:
    """What a call gives, comparably: its ``to_dict()``, or the codes of its diagnostics."""
    try:
        return call(rules, entities).to_dict()
    except RunebookError as error:
        return ("error", tuple(d.code for d in error.diagnostics))


@pytest.fixture
def switch_often():  # type: ignore[no-untyped-def]
    """Let threads take turns every few bytecodes, so that they interleave inside runs."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _hammer(rules: Any, entities: dict[str, Any], calls: list[tuple[str, Call]]) -> list[tuple[str, Any]]:
    """8 threads, 12 calls each, on one rules object: (label, outcome) of every call."""
    start = threading.Barrier(THREADS)
    done: list[list[tuple[str, Any]]] = [[] for _ in range(THREADS)]
    crashed: list[BaseException] = []

    def work(index: int) -> None:
        try:
            start.wait()
            for k in range(CALLS):
                label, call = calls[(index * 3 + k) % len(calls)]
                done[index].append((label, _outcome(call, rules, entities)))
        except BaseException as error:  # noqa: BLE001 - reported by the test
            crashed.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if crashed:
        raise crashed[0]
    return [item for items in done for item in items]


@pytest.mark.parametrize("game", list(CALLS_BY_GAME))
def test_one_loaded_ruleset_shared_by_threads(game: str, tmp_path: Path, switch_often: None) -> None:
    calls = CALLS_BY_GAME[game]
    alone = interpreter.load(game)
    alone_entities = _entities(alone, game, tmp_path)
    expected = {label: _outcome(call, alone, alone_entities) for label, call in calls}
    for label, value in expected.items():  # the mix is what it says it is
        assert (type(value) is tuple) == label.startswith("fails"), (label, value)

    shared = interpreter.load(game)  # cold: the threads fill its caches together
    entities = _entities(shared, game, tmp_path)
    results = _hammer(shared, entities, calls)
    assert len(results) == THREADS * CALLS
    wrong = sorted({label for label, value in results if value != expected[label]})
    assert not wrong, f"{game}: calls that gave another answer under threads: {wrong}"
    # Afterwards, alone again: the same answers (nothing a run left behind changes the next).
    assert {label: _outcome(call, shared, entities) for label, call in calls} == expected


#: A chain of dice terms is folded as independent parts until, in a later world (``a > 2``),
#: one of them reads a pool declared elsewhere: that enumeration starts again and evaluates
#: the chain plainly. Another thread's enumeration of the same compiled line must not switch
#: ways in the middle (its worlds would not line up: an IndexError or wrong fractions).
GIVING_UP = """\
check Mixed (n = 1)
  roll pool = n d4
  let a = 1d4 + 0
  result total = max(1d4, pool if a > 2 else 0) + 1d4 + 1d6
"""


def test_a_chain_that_stops_being_folded_under_threads(tmp_path: Path, switch_often: None) -> None:
    (tmp_path / "g.rules").write_text(GIVING_UP, encoding="utf-8")
    expected = interpreter.load(str(tmp_path)).odds("mixed").to_dict()
    # The odds enumerated here: pool, a and the three other dice, each world once.
    counted: dict[int, Fraction] = {}
    for pool, a, first, second, third in product(range(1, 5), range(1, 5), range(1, 5), range(1, 5), range(1, 7)):
        total = max(first, pool if a > 2 else 0) + second + third
        counted[total] = counted.get(total, Fraction(0)) + Fraction(1, 4 ** 4 * 6)
    assert expected["results"]["total"] == {str(k): str(v) for k, v in sorted(counted.items())}
    for _trial in range(6):
        rules = interpreter.load(str(tmp_path))  # freshly compiled: the first enumerations race
        outcomes: list[Any] = []

        def work() -> None:
            try:
                outcomes.append(rules.odds("mixed").to_dict())
            except Exception as error:  # noqa: BLE001 - compared below
                outcomes.append(repr(error))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert outcomes == [expected] * 4


def test_a_failed_run_leaves_the_shared_ruleset_usable(tmp_path: Path) -> None:
    """Runs and odds that fail part-way (a diagnostic, or an exception from the embedder's
    driver) leave the ruleset and the entities given as they were."""
    rules = interpreter.load("questworlds")
    fresh = interpreter.load("questworlds")
    hero, fresh_hero = _entities(rules, "questworlds", tmp_path)["hero"], _entities(fresh, "questworlds", tmp_path)["hero"]
    before = hero.state()

    def refuse(point: ChoicePoint) -> str:
        raise KeyboardInterrupt  # the embedder stops the run at its first choice

    with pytest.raises(KeyboardInterrupt):
        rules.run("hero contest", as_=hero, resistance=14, seed=3, driver=CallbackDriver(refuse))
    with pytest.raises(RunebookError):
        rules.odds("hero contest", ability=15, resistance=14)  # no actor: fails inside the chain
    with pytest.raises(RunebookError):
        rules.odds("hero contest", as_=hero, resistance=14, answers={"hero_point": "maybe"})
    with pytest.raises(RunebookError):
        rules.odds("hero point boost", heroes=0)  # a `require` fails in every world
    assert hero.state() == before
    for call in (lambda r, h: r.odds("hero contest", as_=h, resistance=14, answers={"hero_point": "use"}),
                 lambda r, h: r.run("hero contest", as_=h, resistance=14, seed=3, driver=FixedDriver()),
                 lambda r, h: r.odds("contest", ability=15, resistance=14)):
        assert call(rules, hero).to_dict() == call(fresh, fresh_hero).to_dict()
