"""Our homebrew powers do what we mean: a roll with given dice, and the exact odds against a
count made here by hand (every way three d10 can fall).

    python -m pytest tests      # from the content repository's root
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

from runebook import interpreter

ROOT = Path(__file__).resolve().parent.parent
RULES = interpreter.load(str(ROOT / "homebrew"))
XIADANI = RULES.entity(str(ROOT / "characters" / "xiadani.yaml"))
BANDIT = RULES.entity(str(ROOT / "characters" / "bandit.yaml"))

#: Ember Lash: each of three d10 + Attack 3 + Will 2 that reaches the Bandit's Defense 11 is a
#: success; 1 success is Low, 2 Medium, 3 High. Result 1 is [Grade + 2], Result 3 [Grade + 4].
BONUS, DEFENSE = 3 + 2, 11
DAMAGE = {0: 0, 1: 1 + 2, 2: 2 + 2, 3: 3 + 4}


def test_ember_lash_with_given_dice() -> None:
    # 6, 7 and 9 become 11, 12 and 14: three successes, a High grade, 3 + 4 damage.
    result = RULES.run("Ember Lash", as_=XIADANI, against=BANDIT, dice=[6, 7, 9])
    assert str(result.results["grade"]) == "High"
    assert result.results["damage"] == 7
    # 5 + 5 = 10 misses the Defense: two successes are a Medium grade, 2 + 2 damage.
    assert RULES.run("Ember Lash", as_=XIADANI, against=BANDIT, dice=[5, 7, 9]).results["damage"] == 4


def test_ember_lash_odds_match_a_count_by_hand() -> None:
    successes = Counter(sum(face + BONUS >= DEFENSE for face in faces) for faces in product(range(1, 11), repeat=3))
    expected: Counter[int] = Counter()
    for count, ways in successes.items():
        expected[DAMAGE[count]] += ways
    odds = RULES.odds("Ember Lash", as_=XIADANI, against=BANDIT)
    assert odds.results["damage"] == {damage: Fraction(ways, 10**3) for damage, ways in expected.items()}
