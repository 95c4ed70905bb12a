"""Mezzo's Actor Role (spec §3.11, A41): a player cannot leave it while a character they
claimed is active in the scene; `actor_role_lock=free` is the relaxed reading."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("args", "code"), [
    ([], 0),
    (["--with", "claimed_active=Mira"], 1),
    (["--with", "claimed_active=Mira,Oswin"], 1),
    (["--with", "claimed_active=Mira", "--option", "actor_role_lock=free"], 0),
])
def test_leaving_the_actor_role(cli, args: list[str], code: int) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mezzo", "Leave Actor Role", *args, "--json")
    assert run.code == code
    if code == 0:
        assert '"in_actor_role": false' in run.stdout
    else:
        assert "E0613 'Leave Actor Role' requires actor_role_left_when(claimed_active)" in run.stderr
        assert "Traceback" not in run.stderr and run.stdout == ""


def test_an_unknown_lock_is_a_usage_error(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("run", "mezzo", "Leave Actor Role", "--option", "actor_role_lock=forever")
    assert run.code in (1, 2) and "actor_role_lock" in run.stderr and "Traceback" not in run.stderr
