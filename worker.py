"""Runs an office worker against TEMPORAL_ADDRESS and OFFICE_DATABASE_URL: `python worker.py`."""

import asyncio

from office.worker_runtime import run_worker_forever

if __name__ == "__main__":
    asyncio.run(run_worker_forever())
