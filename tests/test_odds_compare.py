"""`runebook odds A B ...`: expressions side by side, as text, CSV, JSON and an SVG chart,
checked against enumerations of the faces."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path


def _enumerate(dice: int, sides: int) -> dict[int, Fraction]:
    counts = Counter(sum(faces) for faces in product(range(1, sides + 1), repeat=dice))
    total = sides ** dice
    return {k: Fraction(v, total) for k, v in counts.items()}


def test_two_expressions_side_by_side(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", "1d20", "2d10")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[1].split() == ["outcome", "1d20", "2d10"]
    row = next(line for line in lines if line.split()[:1] == ["11"])
    assert row.split()[1:3] == ["5.00%", "10.00%"]  # 1/20 and 10/100
    d20, two_d10 = _enumerate(1, 20), _enumerate(2, 10)
    greater = sum(p * q for (a, p), (b, q) in product(d20.items(), two_d10.items()) if a > b)
    equal = sum(p * q for (a, p), (b, q) in product(d20.items(), two_d10.items()) if a == b)
    assert f"1d20 > 2d10: {float(greater) * 100:.2f}% ({greater.numerator}/{greater.denominator}); " \
           f"equal: {float(equal) * 100:.2f}%" in run.stdout
    assert "mean: 1d20 10.5, 2d10 11" in run.stdout


def test_csv_has_each_exact_chance(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("odds", "3d6", "2d6", "--format", "csv")
    assert run.code == 0, run.stderr
    rows = list(csv.reader(io.StringIO(run.stdout)))
    assert rows[0] == ["outcome", "3d6 exact", "3d6 chance", "2d6 exact", "2d6 chance"]
    three, two = _enumerate(3, 6), _enumerate(2, 6)
    assert [int(r[0]) for r in rows[1:]] == list(range(2, 19))
    for outcome, exact3, _, exact2, _ in rows[1:]:
        assert Fraction(exact3) == three.get(int(outcome), 0)
        assert Fraction(exact2) == two.get(int(outcome), 0)
    single = cli("odds", "2d6", "--format", "csv")
    assert list(csv.reader(io.StringIO(single.stdout)))[6] == ["7", "1/6", "0.1666666667"]


def test_json_of_a_comparison(cli) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(cli("odds", "1d4", "1d6", "--json").stdout)
    assert [e["expression"] for e in data["expressions"]] == ["1d4", "1d6"]
    assert data["first_greater"] == "1/4"  # (0+1+2+3)/24
    assert data["equal"] == "1/6" and data["first_less"] == "7/12"


def test_an_svg_chart(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    chart = tmp_path / "odds.svg"
    run = cli("odds", "2d6", "1d12", "--chart", "svg", str(chart))
    assert run.code == 0, run.stderr
    root = ET.fromstring(chart.read_text(encoding="utf-8"))
    bars = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("{http://www.w3.org/2000/svg}title")
            is not None]
    assert len(bars) == 12 * 2  # outcomes 1..12, a bar for each expression
    tallest = max(bars, key=lambda r: float(r.get("height")))
    assert tallest.find("{http://www.w3.org/2000/svg}title").text.startswith("2d6: 7 ")


def test_a_game_and_its_check_still_mean_a_check(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "g.rules").write_text("check Roll (n: number = 0)\n  roll d = 1d4\n  result total = sum(d) + n\n",
                                      encoding="utf-8")
    run = cli("odds", str(tmp_path), "Roll", "--with", "n=1")
    assert run.code == 0, run.stderr
    assert "Roll: total" in run.stdout and "25.00%" in run.stdout


def test_what_odds_refuses(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert cli("odds", "1d6", "1d8", "--chart", "png", str(tmp_path / "x.png")).code == 2
    assert cli("odds", "mestezia", "skill check", "--format", "csv").code == 2
    assert cli("odds", "1d6 + n", "1d8", "--with", "n=one").code == 2  # --with gives expressions numbers
    bad = cli("odds", "1d6", "2d")
    assert bad.code == 1 and "Traceback" not in bad.stderr
