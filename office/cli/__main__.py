"""`python -m office.cli …` (the simulator and worker subprocesses of the test stack start it this way)."""

from office.cli import main

main()
