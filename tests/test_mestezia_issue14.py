"""Mestezia, issue 14: rulebook defaults a user should not type (a thrown reach of 5 hexes),
movement along a path through Rough terrain, and effect lifetimes. Expected values follow the
book's wording as the spec quotes it (§1.11 L653-654, §2.12 Rough N, §2.7 Invest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "rulesets" / "mestezia" / "examples"


def _fighter(tmp_path: Path, keywords: str, reach: int | None = None) -> Path:
    path = tmp_path / "fighter.yaml"
    stats = "  Attack: 4\n  Strength: 2\n  Speed: 2\n  Defense: 11\n  Weapon Cost: 1\n  Weapon Damage: 6\n"
    if reach is not None:
        stats += f"  Weapon Reach: {reach}\n"
    path.write_text(f"name: Fighter\nposition: [0, 0]\nstats:\n{stats}weapon keywords: [{keywords}]\n"
                    "resources:\n  CP: 6\npowers: [Berserker Charge]\n", encoding="utf-8")
    return path


def _foe(tmp_path: Path, q: int) -> Path:
    path = tmp_path / "foe.yaml"
    path.write_text(f"name: Foe\nposition: [{q}, 0]\nstats:\n  Defense: 10\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("keywords", "reach", "distance", "allowed"), [
    ("Thrown", None, 5, True),     # a thrown weapon: 5 hexes by default (L654)
    ("Thrown", None, 6, False),
    ("Sword", None, 1, True),      # melee: 1 hex (L653)
    ("Sword", None, 2, False),
    ("Thrown", 3, 4, False),       # a reach the file gives wins
    ("Thrown", 3, 3, True),
])
def test_thrown_reach_default(cli, tmp_path: Path, keywords: str, reach: int | None, distance: int,
                              allowed: bool) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "Berserker Charge", "--as", str(_fighter(tmp_path, keywords, reach)),
              "--against", str(_foe(tmp_path, distance)), "--dice", "6,7,9")
    assert (run.code == 0) is allowed, run.stderr
    if not allowed:
        assert "E0613" in run.stderr and "Traceback" not in run.stderr


def _walker(tmp_path: Path, conditions: str = "") -> Path:
    path = tmp_path / "walker.yaml"
    path.write_text(f"name: Walker\nposition: [0, 0]\nstats:\n  Speed: 4\n{conditions}", encoding="utf-8")
    return path


def _cost(path: list[tuple[int, int]], rough: set[tuple[int, int]], n: int, phasing: bool = False) -> int:
    """Each hex entered costs 1, a Rough N one N (Phasing ignores it)."""
    return sum(1 if phasing or c not in rough else n for c in path)


@pytest.mark.parametrize(("rough", "n"), [(set(), 2), ({(2, 0)}, 2), ({(1, 0), (2, 0)}, 2), ({(2, -1)}, 3)])
def test_moving_along_a_path_pays_rough_hexes(cli, tmp_path: Path, rough: set[tuple[int, int]], n: int) -> None:  # type: ignore[no-untyped-def]
    path = [(1, 0), (2, 0), (2, -1)]
    flat = ",".join(f"{q},{r}" for q, r in path)
    args = ["run", "mestezia", "move along", "--as", str(_walker(tmp_path)), "--with", f"path={flat}",
            "--with", f"rough_n={n}", "--json"]
    if rough:
        args += ["--with", "rough=" + ",".join(f"{q},{r}" for q, r in sorted(rough))]
    run = cli(*args)
    cost = _cost(path, rough, n)
    if cost <= 4:
        assert run.code == 0, run.stderr
        results = json.loads(run.stdout)["results"]
        assert (results["spent"], results["left"]) == (cost, 4 - cost)
    else:  # a hex cannot be entered without enough movement left
        assert run.code == 1 and "E0613" in run.stderr


def test_phasing_ignores_rough_terrain(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "move along", "--as", str(_walker(tmp_path, "conditions: [Phasing]\n")),
              "--with", "path=1,0,2,0,3,0", "--with", "rough=1,0,2,0,3,0", "--with", "rough_n=3", "--json")
    assert run.code == 0, run.stderr
    assert json.loads(run.stdout)["results"]["spent"] == 3


def test_a_path_must_be_connected(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mestezia", "move along", "--as", str(_walker(tmp_path)), "--with", "path=1,0,3,0")
    assert run.code == 1 and "hex_distance(here, c) == 1" in run.stderr


# ------------------------------------------------------------------ effect lifetimes

HOMEBREW = REPO / "rulesets" / "mestezia" / "homebrew"


def _warden(tmp_path: Path, conditions: list[str]) -> Path:
    path = tmp_path / "warden.yaml"
    held = "".join(f"  - {c}\n" for c in conditions)
    path.write_text("name: Warden\nstats:\n  Attack: 3\n  Defense: 11\nresources:\n  CP: 6\n"
                    "traits: [Iron Guard, Storm Footing, Witchcraft Kit]\npowers: [Slow Fuse]\n"
                    + (f"conditions:\n{held}" if held else ""), encoding="utf-8")
    return path


def _run(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    run = cli("run", str(HOMEBREW), *args, "--json")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def test_adopting_a_stance(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    payload = _run(cli, "adopt stance", "--as", str(_warden(tmp_path, [])), "--with", "trait=Iron Guard")
    actor = payload["state"]["actor"]
    assert payload["results"] == {"stance": "Iron Guard", "replaced": False}
    assert actor["conditions"] == ['In Stance("Iron Guard")', "Protected(2)"] and actor["resources"]["CP"] == 5


def test_a_new_stance_replaces_the_old(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    warden = _warden(tmp_path, ['In Stance("Iron Guard")'])
    payload = _run(cli, "adopt stance", "--as", str(warden), "--with", "trait=Storm Footing")
    held = payload["state"]["actor"]["conditions"]
    assert payload["results"]["replaced"] is True
    assert held.count('In Stance("Storm Footing")') == 1 and not any("Iron Guard" in c for c in held)


def test_only_a_stance_is_adopted_and_not_while_unconscious(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    item = cli("run", str(HOMEBREW), "adopt stance", "--as", str(_warden(tmp_path, [])), "--with", "trait=Witchcraft Kit")
    assert item.code == 1 and "E0613" in item.stderr
    out = cli("run", str(HOMEBREW), "adopt stance", "--as", str(_warden(tmp_path, ["Unconscious"])),
              "--with", "trait=Iron Guard")
    assert out.code == 1 and "not has(actor, Unconscious)" in out.stderr


@pytest.mark.parametrize("unconscious", [False, True])
def test_a_stance_ends_when_its_owner_is_unconscious(cli, tmp_path: Path, unconscious: bool) -> None:  # type: ignore[no-untyped-def]
    held = ['In Stance("Iron Guard")', "Protected(2)"] + (["Unconscious"] if unconscious else [])
    payload = _run(cli, "sustain stance", "--as", str(_warden(tmp_path, held)), "--with", "trait=Iron Guard")
    after = payload["state"]["actor"]["conditions"]
    assert payload["results"]["sustained"] is (not unconscious)
    assert ("Protected(2)" in after) is (not unconscious)


def test_ending_a_stance_lifts_its_effects(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    warden = _warden(tmp_path, ['In Stance("Iron Guard")', "Protected(2)"])
    assert _run(cli, "end stance", "--as", str(warden), "--with", "trait=Iron Guard")["state"]["actor"]["conditions"] == []


@pytest.mark.parametrize("segment", [1, 2, 3, 4, 7, 10])
def test_invest_schedules_the_result(cli, tmp_path: Path, segment: int) -> None:  # type: ignore[no-untyped-def]
    """Invest 3 used in segment s: segment s - 3 (counting down), or s - 3 + 10 next round."""
    payload = _run(cli, "Slow Fuse", "--as", str(_warden(tmp_path, [])), "--against", str(EXAMPLES / "inquisitor.yaml"),
                   "--with", f"segment={segment}", "--dice", "9,9,9")
    expected = segment - 3 if segment - 3 >= 1 else segment - 3 + 10
    assert payload["shown"]["resolves_segment"] == expected
    assert payload["shown"]["resolves_next_round"] is (segment - 3 < 1)


@pytest.mark.parametrize(("hp", "kept"), [(15, False), (10, True), (8, True)])
def test_a_feature_is_lost_with_its_prerequisite(cli, tmp_path: Path, hp: int, kept: bool) -> None:  # type: ignore[no-untyped-def]
    """Blood Rage needs its holder Bloodied (HP at most half of Max HP, 20 here); healed above
    that, the stance is lost and ends, its Hasted lifted."""
    rager = tmp_path / "rager.yaml"
    rager.write_text(f"name: Rager\nstats:\n  Max HP: 20\nresources:\n  CP: 4\n  HP: {hp}\ntraits: [Blood Rage]\n"
                     "conditions:\n  - In Stance(\"Blood Rage\")\n  - Hasted\n", encoding="utf-8")
    payload = _run(cli, "review feature", "--as", str(rager), "--with", "feature=Blood Rage")
    assert payload["results"] == {"kept": kept}
    held = payload["state"]["actor"]["conditions"]
    assert held == (['In Stance("Blood Rage")', "Hasted"] if kept else [])


@pytest.mark.parametrize(("power", "fallen", "lifted"), [
    ("Cinder Field", "knocked_out", None),        # a zone outlives an Unconscious creator
    ("Cinder Field", "slain", "Slowed"),          # "If a zone's creator is slain, the zone ends"
    ("Glimmer Veil", "knocked_out", "Protected(1)"),  # "If the aura's creator falls unconscious, the aura disappears"
    ("Glimmer Veil", "slain", "Protected(1)"),
    ("Spark Bind", "knocked_out", None),
    ("Spark Bind", "slain", "Immobilized"),       # "Evocations end immediately if the evoker dies"
])
def test_effects_end_with_their_creator(cli, tmp_path: Path, power: str, fallen: str, lifted: str | None) -> None:  # type: ignore[no-untyped-def]
    held = ["Slowed", "Protected(1)", "Immobilized"]
    victim = tmp_path / "victim.yaml"
    victim.write_text("name: Victim\nstats:\n  Defense: 9\nconditions:\n" + "".join(f"  - {c}\n" for c in held),
                      encoding="utf-8")
    payload = _run(cli, "creator falls", "--as", str(HOMEBREW / "warden.yaml"), "--against", str(victim),
                   "--with", f"power={power}", "--with", f"fallen={fallen}")
    assert payload["results"]["ended"] is (lifted is not None)
    assert payload["state"]["target"]["conditions"] == [c for c in held if c != lifted]
