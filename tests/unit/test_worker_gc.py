"""The worker process tunes Python's collector for a long-lived heap (what it measured: see tune_gc)."""

import subprocess
import sys

from office.worker_runtime import GC_YOUNG_THRESHOLD

PROBE = """
import gc
from office.worker_runtime import tune_gc
tune_gc()
print(gc.get_freeze_count(), *gc.get_threshold())
"""


def test_a_worker_freezes_what_it_loaded_and_collects_young_objects_less_often():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    frozen, young, *_ = map(int, out.split())
    assert frozen > 10_000 and young == GC_YOUNG_THRESHOLD
