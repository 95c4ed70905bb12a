"""METTLE Core travel as a point-crawl (rulesets/mettle/travel.rules, the example map in
rulesets/mettle/homebrew/coast.rules): legs over a map of stops and paths, Twists that get the
party lost, rations and hunger, dropping a pin, rival parties (spec §3 travel, §4.14), with
given dice, exact odds against an enumeration written here, and refusals."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

from runebook.interpreter.rules import load
from runebook.interpreter.rules.procedures import CallbackDriver
from mettle_helpers import answers, ex, refused, run

ROOT = Path(__file__).resolve().parent.parent / "rulesets" / "mettle"
COAST = str(ROOT / "homebrew")
#: The dice of a crawl that gets lost (test_lost_on_the_way_and_hungry_at_the_end).
LOST = [1, 4, 4, 5, 6, 1, 4, 4, 4, 5, 2, 2, 4, 4, 4, 1, 3, 4, 4, 4, 4, 6]


def crawl(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    return run(cli, "Coast Crawl", *args, game=COAST)


def paths_offered(given: list[str], dice: list[int], **inputs: object) -> list[tuple[str, ...]]:
    """The paths offered at each stop of a crawl, in order, for the answers given."""
    rules = load(COAST)
    seen: list[tuple[str, ...]] = []
    script = iter(given)

    def answer(point):  # type: ignore[no-untyped-def]
        if point.name == "crawl.path":
            seen.append(tuple(point.options))
        return next(script)

    rules.run("Coast Crawl", as_=rules.entity(ex("kirin")), dice=dice, driver=CallbackDriver(answer), **inputs)
    return seen


def test_a_crawl_to_the_temple(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Kirin (POISE 5) leads: the coast road (Difficulty 2) [1,1,4,5,6] Score 2, and its d6
    # table's 3 (signs of pilgrims); the pilgrim steps (5) [2,3,4,4,4] Score 5, a 1 on the
    # table (signs of bandits): two safe legs, 1 + 2 days on 3 days of rations.
    out = crawl(cli, "--as", ex("kirin"), "--choices", answers(tmp_path, "coast road", "pilgrim steps"),
                "--dice", "1,1,4,5,6,3,2,3,4,4,4,1")
    assert out["results"] == {"arrived_at": "temple", "reached_goal": True, "route": ["harbour", "old_ruins", "temple"],
                              "days": 3, "encounters": 0, "twists": [], "table_rolls": ["pilgrims", "bandits"],
                              "hungry_days": 0}


def test_lost_on_the_way_and_hungry_at_the_end(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Leg 1, the coast road (2): [1,4,4,5,6] Score 1 fails with Edge 4; the Twist "lost the
    # way" rolls the four Edge dice again, [1,4,4,4]: Score 2, a success, but the party ends up
    # next to the ruins, back at the harbour. Leg 2, the marsh track (4): [2,2,4,4,4] Score 4.
    # Leg 3, the reed maze (3): [3,4,4,4,4] Score 3. Each leg rolls its table after its Check
    # (5, 1, 6). Three days on two days of rations: one hungry day, 1 Strain of hunger.
    plan = answers(tmp_path, "coast road", "lost_the_way", "harbour", "marsh track", "reed maze")
    out = crawl(cli, "--as", ex("kirin"), "--with", "rations=2", "--choices", plan, "--dice", ",".join(map(str, LOST)))
    assert out["results"] == {"arrived_at": "temple", "reached_goal": True,
                              "route": ["harbour", "harbour", "salt_marsh", "temple"], "days": 3, "encounters": 0,
                              "twists": ["lost_the_way"], "table_rolls": ["wolves", "leeches", "a crocodile"],
                              "hungry_days": 1}
    assert out["state"]["actor"]["conditions"] == ['Strained(1, "hunger")']
    # At the salt marsh the path to the goal comes first, the one back to the harbour last.
    offered = paths_offered(["coast road", "lost_the_way", "harbour", "marsh track", "reed maze"], LOST, rations=2)
    assert offered == [("coast road", "marsh track"), ("coast road", "marsh track"), ("reed maze", "marsh track")]


def test_a_long_way_round_and_an_encounter(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # The coast road: [1,4,4,5,6] fails; the Delay Twist ("long way") rerolls [4,4,4,4]: still
    # Score 1, a failure: an encounter, wolves (5 on the table), and the leg takes 2 days. The
    # pilgrim steps: safe.
    plan = answers(tmp_path, "coast road", "long_way", "pilgrim steps")
    out = crawl(cli, "--as", ex("kirin"), "--choices", plan, "--dice", "1,4,4,5,6,4,4,4,4,5,2,3,4,4,4,2")
    assert out["results"]["encounters"] == 1 and out["results"]["days"] == 4
    assert out["results"]["table_rolls"] == ["wolves", "bandits"]
    assert out["results"]["hungry_days"] == 1


def test_dropping_a_pin(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A pin dropped 2 Difficulty and 2 days from the harbour: the path to it is offered first.
    out = crawl(cli, "--as", ex("kirin"), "--with", "goal=pin", "--with", "pin_difficulty=2", "--with", "pin_days=2",
                "--choices", answers(tmp_path, "to the pin"), "--dice", "1,1,4,4,4")
    assert out["results"]["route"] == ["harbour", "pin"] and out["results"]["days"] == 2
    offered = paths_offered(["to the pin"], [1, 1, 4, 4, 4], goal="pin", pin_difficulty=2, pin_days=2)
    assert offered == [("to the pin", "coast road", "marsh track")]


def test_a_stop_with_no_path_is_refused(cli) -> None:  # type: ignore[no-untyped-def]
    refused(cli, "Path Leaves Here", "Coast Crawl", "--as", ex("kirin"), "--with", "start=pin", game=COAST)


def test_rival_parties_arrive_by_edge(cli) -> None:  # type: ignore[no-untyped-def]
    # Kirin (POISE 5) [1,2,4,4,5]: Score 3, Edge 3; Viktor (POISE 4) [1,1,1,6]: Score 3, Edge 1.
    out = run(cli, "Travel Rivals", "--as", ex("kirin"), "--against", ex("viktor"), "--with", "difficulty=3",
              "--dice", "1,2,4,4,5,1,1,1,6")
    assert out["results"] == {"arrival": ["Kirin", "Viktor"], "edge": [3, 1], "encounter": [False, False]}
    # Viktor fails ([1,4,5,6]: Score 1) but has the higher Edge: he arrives first, after his encounter.
    late = run(cli, "Travel Rivals", "--as", ex("kirin"), "--against", ex("viktor"),
               "--dice", "3,3,1,1,1,1,4,5,6", "--answer", "travel_twist=no_twist")["results"]
    assert late == {"arrival": ["Viktor", "Kirin"], "edge": [0, 3], "encounter": [False, True]}


def test_the_encounters_of_a_crawl_match_an_enumeration() -> None:
    # Every choice at its first option: the coast road (2), then the pilgrim steps (5); no Twist.
    miss = {d: sum(Fraction(1, 6 ** 5) for faces in product(range(1, 7), repeat=5)
                   if sum(f for f in faces if f <= 3) < d) for d in (2, 5)}
    expected: Counter = Counter()
    for a, b in product([False, True], repeat=2):
        expected[int(a) + int(b)] += (miss[2] if a else 1 - miss[2]) * (miss[5] if b else 1 - miss[5])
    rules = load(COAST)
    odds = rules.odds("Coast Crawl", as_=rules.entity(ex("kirin")))
    assert {k: v for k, v in dict(odds.results["encounters"]).items() if v} == dict(expected)
    assert dict(odds.results["days"]) == {3: 1}
    # Each leg's road table: bandits on 1-2 of the d6, so both legs show them 1/9 of the time.
    rolls = {tuple(str(x) for x in k): v for k, v in dict(odds.results["table_rolls"]).items() if v}
    assert rolls[("bandits", "bandits")] == Fraction(1, 9) and sum(rolls.values()) == 1
