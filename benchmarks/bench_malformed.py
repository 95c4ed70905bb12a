"""Time and peak memory of `runebook check` on every malformed input of the test suite.

    python benchmarks/bench_malformed.py

Each case runs as its own `runebook check` process, alone in a fresh folder, as a user
would run it; wall time and the process's peak resident memory are reported. The test
suite asserts the diagnostics (tests/test_malformed.py); this script measures the bounds
the issue sets: under 1 s and 200 MB per case.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _cases() -> dict[str, bytes]:
    spec = importlib.util.spec_from_file_location("malformed", REPO / "tests" / "test_malformed.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = {p.stem: p.read_bytes() for p in module.FILES}
    cases.update(module.GENERATED)
    return cases


def measure(name: str, data: bytes) -> tuple[float, float, int]:
    folder = Path(tempfile.mkdtemp())
    try:
        (folder / f"{name}.rules").write_bytes(data)
        command = [sys.executable, "-m", "runebook", "check", f"{name}.rules"]
        env = dict(os.environ, PYTHONPATH=str(REPO))
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)
    finally:
        shutil.rmtree(folder)


def main() -> int:
    rows = [(name, *measure(name, data)) for name, data in sorted(_cases().items())]
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'seconds':>8}  {'peak MB':>8}  exit")
    for name, seconds, megabytes, code in rows:
        print(f"{name:<{width}}  {seconds:8.3f}  {megabytes:8.1f}  {code}")
    worst_time = max(r[1] for r in rows)
    worst_memory = max(r[2] for r in rows)
    print(f"\n{len(rows)} cases; slowest {worst_time:.3f} s, largest {worst_memory:.1f} MB; "
          f"all exit 1: {all(r[3] == 1 for r in rows)}")
    return 0 if worst_time < 1 and worst_memory < 200 and all(r[3] == 1 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
