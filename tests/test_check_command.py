"""`runebook check`: output formats, exit codes and paths."""

from __future__ import annotations

import json
from pathlib import Path

from runebook.rulesets import RULESETS_DIR

BAD = Path(__file__).resolve().parent / "cases" / "homebrew" / "frost_lance.rules"


def test_json_format(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", "--format", "json", str(BAD))
    assert run.code == 1
    payload = json.loads(run.stdout)
    assert payload["errors"] == 2
    first = payload["diagnostics"][0]
    assert set(first) == {"path", "line", "column", "end_line", "end_column", "code", "severity", "message", "help"}
    assert (first["line"], first["column"], first["code"]) == (7, 15, "E0207")


def test_github_format(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", "--format", "github", str(BAD))
    assert run.code == 1
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"::error file={BAD},line=7,col=15,endColumn=23,title=E0207::unknown name 'Strenght'")


def test_missing_path_is_a_usage_error(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", "no/such/file.rules")
    assert run.code == 2
    assert "E0001 cannot read 'no/such/file.rules': no such file or directory" in run.stderr


def test_unknown_game_option_is_a_usage_error(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", "--game", "mezo", str(BAD))
    assert run.code == 2
    assert "did you mean 'mezzo'?" in run.stderr


def test_bad_arguments_exit_2_without_traceback(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", "--format", "xml", str(BAD))
    assert run.code == 2
    assert "Traceback" not in run.stderr
    assert cli().code == 2


def test_one_ruleset_file_is_checked_with_its_siblings_declarations(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(RULESETS_DIR / "mestezia" / "powers.rules"))
    assert run.code == 0, run.stderr


def test_folder_with_no_rules_files(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = cli("check", str(tmp_path))
    assert run.code == 2
    assert "E0005" in run.stderr


def test_large_files_checked_in_parallel_report_what_serial_checking_reports(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    from runebook.dsl import loader
    from runebook.dsl.diagnostics import render_text

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_check import generate

    text = generate(3000)
    text = text.replace("Generated Power 5\nCost", "Generated Power 5\nCots", 1)
    text = text.replace("Generated Power 250\n", "Generated Power 7\n", 1)
    path = tmp_path / "big.rules"
    path.write_text(text)
    monkeypatch.setattr(loader.LIMITS, "parallel_lines", 1000)
    parallel = loader.check_paths([str(path)])
    monkeypatch.setattr(loader.LIMITS, "parallel_lines", 10**9)
    serial = loader.check_paths([str(path)])
    assert parallel.entries == serial.entries == text.count("\nGenerated Power")
    assert [render_text(d) for d in parallel.diagnostics] == [render_text(d) for d in serial.diagnostics]
    assert sorted(d.code for d in serial.diagnostics) == ["E0203", "E0209"]


def test_a_large_file_naming_other_entries_is_checked_whole(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Lines that name other entries are resolved across the file, so a large file that has
    them is not split between workers: its bad reference is still reported."""
    import sys

    from runebook.dsl import loader

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_check import generate

    text = generate(3000) + "\nKeen Edge\nTo: Generated Powr 5\nAdd: one more die\nKeywords: *Techno Upgrade*\n"
    path = tmp_path / "big.rules"
    path.write_text(text)
    monkeypatch.setattr(loader.LIMITS, "parallel_lines", 1000)
    report = loader.check_paths([str(path)])
    assert [d.code for d in report.diagnostics] == ["E0230"]
    assert "'Generated Power 5'" in (report.diagnostics[0].help or "")


def test_parse_shows_the_tree_and_the_canonical_form(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "p.rules"
    path.write_text("extends mestezia\n\n**Quick Jab**\n*Cost:* [Weapon+1]  CP\nKeywords: *Melee Strike*\n")
    tree = cli("parse", str(path))
    assert tree.code == 0 and "Header\n" in tree.stdout and "op: '+'" in tree.stdout
    canonical = cli("parse", "--canonical", str(path))
    assert canonical.stdout == "extends mestezia\n\nQuick Jab\nCost: [Weapon + 1]  CP\nKeywords: *Melee Strike*\n"
    broken = tmp_path / "b.rules"
    broken.write_text("Jab\nCost: [Weapon + 1 CP\n")
    run = cli("parse", str(broken))
    assert run.code == 1 and "E0104 unclosed '['" in run.stderr
