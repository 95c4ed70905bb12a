"""Choices by callback for asyncio embedders (a chat bot waiting for its player): a coroutine
callback works, the event loop is never blocked while a run waits or computes, and what goes
wrong is raised where the embedder awaits."""

from __future__ import annotations

import asyncio

import pytest

from runebook.dsl.diagnostics import RunebookError
from runebook.interpreter.rules import load_text
from runebook.interpreter.rules.procedures import CallbackDriver, ChoicePoint, ScriptedDriver

GAME = """\
procedure Wager (purse = 10)
  roll die = 1d6
  choose stance: bold | careful
  choose stake: all_in | 1 to 5
  let bet = purse if stake == all_in else stake
  result won = die >= 4 if stance == careful else die >= 3
  result purse_after = purse + bet if won else purse - bet
"""
RULES = load_text(GAME)
ANSWERS = {"stance": "bold", "stake": "4"}


def test_a_coroutine_callback_answers_like_the_same_answers_in_order() -> None:
    asked: list[str] = []

    async def choose(point: ChoicePoint) -> str:
        await asyncio.sleep(0)
        asked.append(point.name)
        return ANSWERS[point.name]

    result = asyncio.run(RULES.run_async("Wager", dice=[3], choose=choose))
    expected = RULES.run("Wager", dice=[3], driver=ScriptedDriver(["bold", "4"]))
    assert asked == ["stance", "stake"]
    assert result.results == expected.results == {"won": True, "purse_after": 14}
    assert result.choices == (("stance", "bold"), ("stake", "4"))
    assert result.to_json() == expected.to_json()


def test_the_loop_goes_on_while_a_run_waits_for_its_player() -> None:
    """The answer comes from another task (the player's message), after the loop has done
    other work: a run that blocked the loop would never see it."""

    async def main() -> tuple[dict[str, object], int]:
        inbox: asyncio.Queue[str] = asyncio.Queue()
        ticks = 0

        async def choose(point: ChoicePoint) -> str:
            return await inbox.get()

        async def player() -> None:
            nonlocal ticks
            for answer in ("careful", "all_in"):
                for _ in range(5):
                    ticks += 1
                    await asyncio.sleep(0.001)
                await inbox.put(answer)

        run = asyncio.create_task(RULES.run_async("Wager", dice=[5], choose=choose))
        await player()
        return (await run).results, ticks

    results, ticks = asyncio.run(main())
    assert results == {"won": True, "purse_after": 20}
    assert ticks == 10


def test_many_players_at_once_each_get_their_own_run() -> None:
    async def main() -> list[int]:
        async def run_for(stake: int) -> int:
            async def choose(point: ChoicePoint) -> str:
                await asyncio.sleep(0.001 * (6 - stake))
                return "careful" if point.name == "stance" else str(stake)

            result = await RULES.run_async("Wager", dice=[1], choose=choose)
            return int(result.results["purse_after"])

        return list(await asyncio.gather(*(run_for(stake) for stake in range(1, 6))))

    assert asyncio.run(main()) == [9, 8, 7, 6, 5]  # each lost its own stake


def test_a_plain_function_and_a_callback_driver_work_in_run_async() -> None:
    async def main() -> tuple[object, object]:
        plain = await RULES.run_async("Wager", dice=[2], choose=lambda point: ANSWERS[point.name])

        async def choose(point: ChoicePoint) -> str:
            return ANSWERS[point.name]

        driven = await RULES.run_async("Wager", dice=[2], driver=CallbackDriver(choose))
        return plain.results, driven.results

    plain, driven = asyncio.run(main())
    assert plain == driven == {"won": False, "purse_after": 6}


def test_a_coroutine_callback_in_a_synchronous_run() -> None:
    async def choose(point: ChoicePoint) -> str:
        return ANSWERS[point.name]

    # Outside any event loop, each answer is awaited on a loop of its own.
    assert RULES.run("Wager", dice=[6], choose=choose).results == {"won": True, "purse_after": 14}

    # Inside a running loop, waiting would block it: the error says what to use instead.
    async def inside() -> None:
        RULES.run("Wager", dice=[6], choose=choose)

    with pytest.raises(RuntimeError, match=r"run_async"):
        asyncio.run(inside())


def test_what_goes_wrong_is_raised_where_the_embedder_awaits() -> None:
    async def wrong(point: ChoicePoint) -> str:
        return "reckless"

    with pytest.raises(RunebookError) as error:
        asyncio.run(RULES.run_async("Wager", dice=[6], choose=wrong))
    assert error.value.diagnostics[0].code == "E0611"
    assert "'reckless' is not offered at choice 'stance'" in error.value.diagnostics[0].message

    async def broken(point: ChoicePoint) -> str:
        raise LookupError("the player left")

    with pytest.raises(LookupError, match="the player left"):
        asyncio.run(RULES.run_async("Wager", dice=[6], choose=broken))
    with pytest.raises(ValueError, match="not both"):
        asyncio.run(RULES.run_async("Wager", choose=broken, driver=ScriptedDriver([])))


def test_a_cancelled_wait_ends_the_run() -> None:
    """The bot gives up on a silent player: the run's task is cancelled while its choice is
    awaited, and the worker thread stops at that choice instead of waiting for ever."""

    async def main() -> None:
        forever = asyncio.Event()

        async def choose(point: ChoicePoint) -> str:
            await forever.wait()
            return "bold"

        task = asyncio.create_task(RULES.run_async("Wager", dice=[6], choose=choose))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
