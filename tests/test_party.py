"""Groups of characters: `--as`/`--against` given several times make `actors`/`targets`;
loops go over them, `choose ... from actors` picks one, `on NAME` changes the one a name
holds; runs, given dice and exact odds agree (tests/cases/party)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from runebook import interpreter

PARTY = Path(__file__).resolve().parent / "cases" / "party"
SIDES = ["--as", str(PARTY / "ana.yaml"), "--as", str(PARTY / "bo.yaml"), "--as", str(PARTY / "cy.yaml"),
         "--against", str(PARTY / "ogre.yaml")]


def test_a_party_from_the_command_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "answers.yaml"
    answers.write_text("- Cy\n")
    # Ana (Might 3) rolls 6: a hit; Bo (1) rolls 1 and Cy (2) rolls 4: misses against Guard 3;
    # the Ogre (Might 2) rolls 5 against Cy's Guard 1: 7 > 4, a hit.
    run = cli("run", str(PARTY), "Volley", *SIDES, "--dice", "6,1,4,5", "--choices", str(answers), "--json")
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"] == {"hits": 1, "struck": "hit", "wounded": [0, 0, 1]}
    assert payload["state"]["target"]["resources"] == {"Wounds": 1}
    assert [a["name"] for a in payload["state"]["actors"]] == ["Ana", "Bo", "Cy"]
    assert [a["resources"]["Wounds"] for a in payload["state"]["actors"]] == [0, 0, 1]
    assert payload["state"]["actor"]["name"] == "Ana"
    assert payload["choices"] == [{"choice": "victim", "answer": "Cy"}]


def test_odds_over_a_party_are_exact(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", str(PARTY), "Volley", *SIDES[:4], *SIDES[6:], "--answer", "victim=Bo", "--json")
    assert run.code == 0, run.stderr
    results = json.loads(run.stdout)["results"]
    # Ana hits on 4-6 (1/2), Bo on a 6 (1/6); the Ogre hits Bo (Guard 4) on a 6.
    assert results["hits"] == {"0": "5/12", "1": "1/2", "2": "1/12"}
    assert results["wounded"] == {"[0, 0]": "5/6", "[0, 1]": "1/6"}


def test_the_api_takes_lists_and_changes_copies() -> None:
    rules = interpreter.load(str(PARTY))
    heroes = [rules.entity(str(PARTY / f"{n}.yaml")) for n in ("ana", "bo")]
    ogre = rules.entity(str(PARTY / "ogre.yaml"))
    from runebook.interpreter.rules.procedures import ScriptedDriver

    run = rules.run("Volley", as_=heroes, against=ogre, dice=[6, 6, 6], driver=ScriptedDriver(["Ana"]))
    assert run.results["wounded"] == (1, 0)
    assert heroes[0].resources["Wounds"] == 0 and ogre.resources["Wounds"] == 0  # the run changed copies
    odds = rules.odds("Volley", as_=heroes, against=ogre, answers={"victim": "Ana"})
    # The Ogre (Might 2) against Ana's Guard 2: 2 + d6 > 5 on 4-6.
    assert odds.results["struck"][interpreter.rules.Level("Result", "hit", 1)] == Fraction(1, 2)


def test_on_a_name_that_holds_no_character(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text(
        "resource Wounds (cap = 3, start = 0)\n\nprocedure P ()\n  gain Wounds 1 on nobody\n")
    run = cli("check", str(tmp_path / "g.rules"))
    assert run.code == 1 and "E0207 unknown name 'nobody'" in run.stderr
    other = tmp_path / "other"
    other.mkdir()
    (other / "g.rules").write_text(
        "stats Might, Guard\n\nresource Wounds (cap = 3, start = 0)\n\nprocedure P ()\n  let n = 3\n  gain Wounds 1 on n\n")
    bad = cli("run", str(other), "P", "--as", str(PARTY / "ana.yaml"))
    assert bad.code == 1 and "E0405 'on n' cannot apply to something that is not a character" in bad.stderr


def test_a_party_in_one_yaml_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A file holding a YAML list of characters gives them all, as several --as would."""
    answers = tmp_path / "answers.yaml"
    answers.write_text("- Cy\n")
    one = cli("run", str(PARTY), "Volley", "--as", str(PARTY / "heroes.yaml"), "--against", str(PARTY / "band.yaml"),
              "--dice", "6,1,4,5", "--choices", str(answers), "--json")
    several = cli("run", str(PARTY), "Volley", *SIDES, "--against", str(PARTY / "band.yaml"),
                  "--dice", "6,1,4,5", "--choices", str(answers), "--json")
    assert one.code == 0, one.stderr
    first, second = json.loads(one.stdout), json.loads(several.stdout)
    assert first["results"] == second["results"] == {"hits": 1, "struck": "hit", "wounded": [0, 0, 1]}
    assert [t["name"] for t in first["state"]["targets"]] == ["Ogre", "Goblin"]


def test_a_party_file_with_a_mistake_in_one_member(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- name: Ana\n  stats:\n    Might: 3\n- name: Bo\n  stats:\n    Mihgt: 1\n")
    run = cli("run", str(PARTY), "Volley", "--as", str(bad), "--against", str(PARTY / "ogre.yaml"))
    assert run.code == 1
    assert "bad.yaml:6:5: E0701 unknown stat 'Mihgt'" in run.stderr and "did you mean 'Might'?" in run.stderr
    assert "Traceback" not in run.stderr
