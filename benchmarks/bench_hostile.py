"""Time and memory of each hostile input of issue 15, each in a fresh `runebook` process.

    python benchmarks/bench_hostile.py

Prints, per case: the exit code, the diagnostic code, wall and CPU seconds and the peak
resident memory of the child process (the grammar cache warm, as in normal use).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

FIB = "function fib(n) = n if n < 2 else fib(n - 1) + fib(n - 2)\n\ncheck Grow (n = 25)\n  roll d = 1d6\n  result v = fib(n)\n"
PROCEDURES = """\
procedure Square (x = 3)
  let n = x
  for each i in range(1, 60)
    set n = n * n
  result value = n

procedure Sum Many (count = 20)
  let total = 0
  for each i in range(1, count)
    roll d = 1d1000
    set total = total + d
  result total = total
"""


def _setup(root: Path) -> dict[str, list[str]]:
    (root / "fib").mkdir()
    (root / "fib" / "f.rules").write_text(FIB)
    (root / "proc").mkdir()
    (root / "proc" / "p.rules").write_text(PROCEDURES)
    hostile = root / "hostile"
    hostile.mkdir()
    (hostile / "zero.rules").symlink_to("/dev/zero")
    os.mkfifo(hostile / "pipe.rules")
    (root / "outside.rules").write_text("stats: secret\n")
    (hostile / "leak.rules").symlink_to(root / "outside.rules")
    chain = root / "chain"
    chain.mkdir()
    lines = []
    for i in range(1000):
        lines += [f"procedure P{i} (x = 1)"] + ([f"  do P{i + 1}(x) as inner"] if i < 999 else []) + ["  result v = x", ""]
    (chain / "c.rules").write_text("\n".join(lines))
    # The longest procedure allowed (9,000 lines in a loop, a `do` every 1,000), one of 40,000
    # (1 MB, under the 4 MiB file limit: refused, E0634), and one whose 10,000 values are all
    # read at its end (every line's live names are all of them): what the flow checks cost.
    for folder, count, every in (("long", 9_000, 1_000), ("longer", 40_000, 4_000)):
        (root / folder).mkdir()
        lines = ["procedure Inner (n = 1)", "  result total = n", "", "procedure Long ()", "  let x0 = 0", "  repeat"]
        for i in range(1, count):
            lines += [f"    let x{i} = x{i - 1} + 1"] + ([f"    do Inner({i}) as use{i}"] if i % every == 0 else [])
        (root / folder / "l.rules").write_text("\n".join(lines + [f"    stop if x{count - 1} > 0", "  result t = 1", ""]))
    (root / "wide").mkdir()
    wide = ["procedure Wide ()"] + [f"  let x{i} = {i}" for i in range(9_900)]
    wide += [f"  result t{k} = " + " + ".join(f"x{i}" for i in range(k, min(9_900, k + 1_900))) for k in range(0, 9_900, 1_900)]
    (root / "wide" / "w.rules").write_text("\n".join(wide) + "\n")
    bomb = ["powers:", "  - &a0 [x, x, x, x, x, x, x, x, x]"]
    bomb += [f"  - &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    (root / "bomb.yaml").write_text("\n".join(bomb) + "\n")
    (root / "deep.yaml").write_text("a: " + "[" * 1000 + "]" * 1000 + "\n")
    return {
        "odds 1000d6kh500": ["odds", "1000d6kh500"],
        "odds 1d1000000": ["odds", "1d1000000"],
        "odds highest(7d100!!)": ["odds", "highest(7d100!!)"],
        "odds 20d%x>=9kh10": ["odds", "20d%x>=9kh10"],
        "odds d2x1r1": ["odds", "d2x1r1"],
        "odds any(each(100d1000kh50) >= 999)": ["odds", "any(each(100d1000kh50) >= 999)"],
        "roll 1d<5000 digits>": ["roll", "1d" + "9" * 5000],
        "fib(25)": ["resolve", str(root / "fib"), "Grow", "--seed", "1"],
        "squaring procedure": ["run", str(root / "proc"), "Square", "--seed", "1"],
        "odds of 19 x 1d1000 summed": ["odds", str(root / "proc"), "Sum Many"],
        "odds of METTLE Fire, 1,000 rounds": ["odds", "mettle", "Fire", "--as",
                                              str(REPO / "rulesets" / "mettle" / "examples" / "scout.yaml"),
                                              "--with", "rounds=1000"],
        "check 1,000 chained procedures": ["check", str(chain)],
        "check /dev/zero, FIFO, outside link": ["check", str(hostile)],
        "check a procedure of 9,000 lines": ["check", str(root / "long")],
        "check a procedure of 40,000 lines": ["check", str(root / "longer")],
        "odds of 9,900 values read at the end": ["odds", str(root / "wide"), "Wide"],
        "YAML alias bomb (--as)": ["run", "mestezia", "Berserker Charge", "--as", str(root / "bomb.yaml")],
        "YAML nested 1,000 deep (--as)": ["run", "mestezia", "Berserker Charge", "--as", str(root / "deep.yaml")],
    }


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        cases = _setup(Path(folder))
        subprocess.run([sys.executable, "-m", "runebook", "roll", "1d6"], cwd=REPO, capture_output=True, check=False)
        print(f"{'case':38} {'exit':>4} {'code':>6} {'wall s':>7} {'CPU s':>6} {'peak MB':>8}")
        for name, args in cases.items():
            with tempfile.TemporaryFile("w+") as err:
                started = time.perf_counter()
                child = subprocess.Popen([sys.executable, "-m", "runebook", *args], cwd=REPO,
                                         stdout=subprocess.DEVNULL, stderr=err, text=True)
                _, status, usage = os.wait4(child.pid, 0)
                wall = time.perf_counter() - started
                child.returncode = os.waitstatus_to_exitcode(status)
                err.seek(0)
                stderr = err.read()
            code = next((w for w in stderr.split() if len(w) == 5 and w.startswith("E0") and w[1:].isdigit()), "-")
            cpu = usage.ru_utime + usage.ru_stime
            print(f"{name:38} {child.returncode:>4} {code:>6} {wall:7.2f} {cpu:6.2f} {usage.ru_maxrss / 1024:8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
