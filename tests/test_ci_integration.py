"""CI integration: the pre-commit hooks, the GitHub Action and the example content
repository, run the way pre-commit and GitHub run them, offline.

``runebook`` on PATH is a small script that runs this checkout (``python -m runebook``),
as an installed console script would. The hooks run twice: by pre-commit itself when it is
installed (it is in the ``test`` extra), and always the way pre-commit runs a hook: the
entry, split like a shell would, followed by every tracked file that matches ``files``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "content-repo"
MANIFEST = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
CONFIG = yaml.safe_load((EXAMPLE / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
POWERS = "homebrew/powers.rules"
#: The mistake seeded into the example: a misspelt stat in the Check line (line 10, column 18).
SEEDED = ("Check: [Attack + Will]", "Check: [Attack + Wil]")


@pytest.fixture
def content_repo(tmp_path: Path) -> Path:
    """A copy of the example content repository, and `runebook` on PATH."""
    repo = tmp_path / "content-repo"
    shutil.copytree(EXAMPLE, repo)
    return repo


def _env(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "runebook"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m runebook "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = dict(os.environ)
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO),
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PRE_COMMIT_COLOR="never",
               RUNEBOOK_NO_CACHE="1", GIT_CONFIG_NOSYSTEM="1", HOME=str(tmp_path))
    return env


def _seed(repo: Path) -> None:
    path = repo / POWERS
    text = path.read_text(encoding="utf-8")
    assert text.count(SEEDED[0]) == 1
    path.write_text(text.replace(*SEEDED), encoding="utf-8")


def _untidy(repo: Path) -> None:
    path = repo / POWERS
    path.write_text(path.read_text(encoding="utf-8").replace("\nEmber Lash\n", "\n\n\nEmber Lash   \n"),
                    encoding="utf-8")


def _tracked(repo: Path) -> list[str]:
    return sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)


def _run_hook(hook: dict, repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:  # type: ignore[type-arg]
    """One hook as pre-commit runs it: entry + args + the matching files, in the repo's root."""
    files = [f for f in _tracked(repo) if re.search(hook.get("files", ""), f)]
    command = shlex.split(hook["entry"]) + list(hook.get("args", [])) + files
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------- the hooks themselves


def test_the_manifest_defines_both_hooks_for_rules_files() -> None:
    hooks = {hook["id"]: hook for hook in MANIFEST}
    assert set(hooks) == {"runebook-check", "runebook-fmt"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert re.search(hook["files"], "homebrew/powers.rules")
        assert not re.search(hook["files"], "characters/xiadani.yaml")
        assert not re.search(hook["files"], "notes.rules.md")
    assert shlex.split(hooks["runebook-check"]["entry"]) == ["runebook", "check"]
    assert shlex.split(hooks["runebook-fmt"]["entry"]) == ["runebook", "fmt"]
    # `language: python` installs the repository: its console script must be called `runebook`.
    assert 'runebook = "runebook.interpreter.cli.main:main"' in (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_pre_commit_accepts_the_manifest_and_the_example_config() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    assert [h["id"] for h in clientlib.load_manifest(str(REPO / ".pre-commit-hooks.yaml"))] == [
        "runebook-check", "runebook-fmt"]
    clientlib.load_config(str(EXAMPLE / ".pre-commit-config.yaml"))


def test_the_example_uses_the_hooks_the_manifest_defines() -> None:
    (local,) = CONFIG["repos"]
    assert local["repo"] == "local"
    manifest = {hook["id"]: hook for hook in MANIFEST}
    for hook in local["hooks"]:
        assert hook["entry"] == manifest[hook["id"]]["entry"]
        assert hook["files"] == manifest[hook["id"]]["files"]
    assert {hook["id"] for hook in local["hooks"]} == set(manifest)


def test_the_hook_entries_pass_the_clean_example(content_repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    for hook in CONFIG["repos"][0]["hooks"]:
        done = _run_hook(hook, content_repo, env)
        assert done.returncode == 0, done.stdout + done.stderr
    assert (content_repo / POWERS).read_text(encoding="utf-8") == (EXAMPLE / POWERS).read_text(encoding="utf-8")


def test_the_hook_entries_report_a_seeded_mistake_and_an_untidy_file(content_repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    hooks = {hook["id"]: hook for hook in CONFIG["repos"][0]["hooks"]}
    _seed(content_repo)
    check = _run_hook(hooks["runebook-check"], content_repo, env)
    assert check.returncode == 1
    assert f"{POWERS}:10:18: E0207 unknown name 'Wil'" in check.stderr
    assert "Traceback" not in check.stderr
    _untidy(content_repo)
    before = (content_repo / POWERS).read_text(encoding="utf-8")
    fmt = _run_hook(hooks["runebook-fmt"], content_repo, env)
    after = (content_repo / POWERS).read_text(encoding="utf-8")
    assert after != before and "\n\n\n" not in after and "Ember Lash\n" in after  # rewritten: pre-commit fails
    assert fmt.returncode == 0, fmt.stderr  # the hook itself succeeds; pre-commit sees the change


def test_pre_commit_run_all_files_reports_the_seeded_mistake(content_repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = _env(tmp_path)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=content_repo, env=env, check=True, capture_output=True)

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                              cwd=content_repo, env=env, capture_output=True, text=True, timeout=300)

    git("init", "-q")
    git("add", "-A")
    clean = pre_commit()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"runebook check\.+Passed", clean.stdout) and re.search(r"runebook fmt\.+Passed", clean.stdout)
    _seed(content_repo)
    _untidy(content_repo)
    git("add", "-A")
    dirty = pre_commit()
    assert dirty.returncode == 1
    assert re.search(r"runebook check\.+Failed", dirty.stdout)
    assert f"{POWERS}:12:18: E0207 unknown name 'Wil'" in dirty.stdout  # two lines lower: the blank lines added
    assert re.search(r"runebook fmt\.+Failed", dirty.stdout) and "files were modified by this hook" in dirty.stdout


# ---------------------------------------------------------------- the GitHub Action


def _steps() -> dict[str, dict]:  # type: ignore[type-arg]
    return {step["name"]: step for step in ACTION["runs"]["steps"]}


def test_the_action_is_a_composite_with_the_inputs_it_documents() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "game", "version"} <= set(ACTION["inputs"])
    steps = _steps()
    assert steps["Set up Python"]["uses"].startswith("actions/setup-python@")
    for step in steps.values():
        if "run" in step:
            assert step["shell"] == "bash"
            # Inputs reach the scripts only through env: nothing is pasted into the shell text.
            assert "${{" not in step["run"]
    assert "runebook \"${args[@]}\"" in steps["Check"]["run"] and "--format github" in steps["Check"]["run"]


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_install_step_installs_the_release_asked_for_or_the_action_itself(tmp_path: Path) -> None:
    env = _env(tmp_path)
    log = tmp_path / "python.log"
    fake = tmp_path / "bin" / "python"
    fake.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n', encoding="utf-8")
    fake.chmod(0o755)
    script = _steps()["Install Runebook"]["run"]
    _bash(script, tmp_path, {**env, "RUNEBOOK_VERSION": "0.1.0", "RUNEBOOK_SOURCE": "/actions/runebook"})
    _bash(script, tmp_path, {**env, "RUNEBOOK_VERSION": "", "RUNEBOOK_SOURCE": "/actions/runebook"})
    assert log.read_text(encoding="utf-8").splitlines() == [
        "-m pip install --quiet runebook==0.1.0", "-m pip install --quiet /actions/runebook"]


def test_the_check_step_annotates_a_seeded_mistake(content_repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    script = _steps()["Check"]["run"]
    clean = _bash(script, content_repo, {**env, "RUNEBOOK_PATHS": "homebrew", "RUNEBOOK_GAME": ""})
    assert clean.returncode == 0, clean.stdout + clean.stderr
    _seed(content_repo)
    dirty = _bash(script, content_repo, {**env, "RUNEBOOK_PATHS": "  homebrew ", "RUNEBOOK_GAME": ""})
    assert dirty.returncode == 1
    assert dirty.stdout.startswith(f"::error file={POWERS},line=10,col=18,endColumn=21,title=E0207::unknown name 'Wil'")


def test_the_check_step_passes_the_game_input(content_repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    path = content_repo / POWERS
    path.write_text(path.read_text(encoding="utf-8").replace("extends mestezia\n", ""), encoding="utf-8")
    script = _steps()["Check"]["run"]
    with_game = _bash(script, content_repo, {**env, "RUNEBOOK_PATHS": POWERS, "RUNEBOOK_GAME": "mestezia"})
    assert with_game.returncode == 0, with_game.stdout + with_game.stderr
    without = _bash(script, content_repo, {**env, "RUNEBOOK_PATHS": POWERS, "RUNEBOOK_GAME": ""})
    assert without.returncode == 1 and "::error" in without.stdout


def test_the_example_workflow_uses_the_action_with_its_inputs() -> None:
    workflow = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "runebook.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["check"]["steps"]
    action = next(step for step in steps if step.get("uses", "").split("@")[0].endswith("/runebook"))
    assert set(action["with"]) <= set(ACTION["inputs"])
    assert (EXAMPLE / action["with"]["paths"]).is_dir()


def test_the_example_repository_tests_pass_and_catch_a_changed_power(content_repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    passed = subprocess.run(command, cwd=content_repo, env=env, capture_output=True, text=True, timeout=300)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    path = content_repo / POWERS
    path.write_text(path.read_text(encoding="utf-8").replace("[Grade + 4] damage", "[Grade + 5] damage"),
                    encoding="utf-8")
    failed = subprocess.run(command, cwd=content_repo, env=env, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 1 and "2 failed" in failed.stdout
