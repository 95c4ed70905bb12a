"""Every Mestezia power runs end to end with `runebook run` against the example characters
(issue 14): the catalogue is read from the ruleset itself, so a power added to it is run
too. The dice are three 5s with a +20 bonus: every die succeeds, a High (grade 3), so each
power's highest Result and Effect lines are the ones applied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from runebook import interpreter

REPO = Path(__file__).resolve().parent.parent
MESTEZIA = REPO / "rulesets" / "mestezia"
EXAMPLES = MESTEZIA / "examples"
HOMEBREW = MESTEZIA / "homebrew"

#: The example characters, by the powers their files list.
OWNERS = {
    "Berserker Charge": EXAMPLES / "itzel.yaml",
    "Sleep": EXAMPLES / "xochitl.yaml",
    "Bastion of Defense": EXAMPLES / "xochitl.yaml",
    "Mending Touch": HOMEBREW / "mender.yaml",
}


def _powers(game: Path | str) -> list[tuple[str, str]]:
    rules = interpreter.load(str(game))
    return [(str(game), e.entry.name) for e in rules.ruleset.entries if e.kind == "Power"]


CASES = _powers("mestezia") + [c for c in _powers(HOMEBREW) if "homebrew" in c[0] and c[1] not in
                               {n for _, n in _powers("mestezia")}]


def _actor(power: str, tmp_path: Path) -> Path:
    """The example character who owns the power, else Nayeli (the combat-state example) with
    the power added to her file."""
    if power in OWNERS:
        return OWNERS[power]
    data = yaml.safe_load((EXAMPLES / "nayeli.yaml").read_text(encoding="utf-8"))
    data.setdefault("stats", {}).update({"Will": 2, "Attack": 3})
    data["powers"] = [power]
    path = tmp_path / "actor.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_the_catalogue_is_all_there() -> None:
    names = {n for _, n in CASES}
    assert {"Berserker Charge", "Sleep", "Bastion of Defense", "Accept the Challenge", "Build Momentum",
            "Mending Touch", "Last Stand"} <= names


@pytest.mark.parametrize(("game", "power"), CASES, ids=[n for _, n in CASES])
def test_every_power_runs(game: str, power: str, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    actor = _actor(power, tmp_path)
    target = HOMEBREW / "wounded.yaml" if power == "Mending Touch" else EXAMPLES / "inquisitor.yaml"
    choices = tmp_path / "choices.yaml"
    choices.write_text("- happened\n", encoding="utf-8")  # a triggered power's trigger took place
    args = ["run", game, power, "--as", str(actor), "--against", str(target), "--with", "bonus=20",
            "--with", "threshold=12", "--with", "skills=0", "--dice", "5,5,5", "--choices", str(choices), "--json"]
    if power == "Last Stand":  # its While line: only a Bloodied fighter may use it
        hurt = yaml.safe_load(actor.read_text(encoding="utf-8"))
        hurt.setdefault("resources", {})["HP"] = 5
        actor = tmp_path / "bloodied.yaml"
        actor.write_text(yaml.safe_dump(hurt), encoding="utf-8")
        args[4] = str(actor)
    run = cli(*args)
    assert run.code == 0, run.stderr
    payload = json.loads(run.stdout)
    results, state = payload["results"], payload["state"]
    assert results["grade"] == "High"
    rules = interpreter.load(game)
    entry = next(e.entry for e in rules.ruleset.entries if e.entry.name == power)
    labels = {p.label for p in entry.properties}
    before = yaml.safe_load(Path(args[4]).read_text(encoding="utf-8")).get("resources", {})
    if "Cost" in labels:  # the cost was paid from the actor's points
        assert state["actor"]["resources"]["CP"] < before["CP"]
    printed = " ".join(str(p.value) for p in entry.properties if p.label == "Result")
    if "damage" in printed.lower() and "resist" not in printed.lower():
        assert results["damage"] > 0
    if "regains" in printed:
        assert results["healed"] > 0
