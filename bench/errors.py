"""The one error a benchmark raises when a run it measures did not do what the measurement needs (a run that did
not complete, a commit that recorded nothing): its figures would be wrong, so it stops instead of reporting them."""


class BenchFailed(RuntimeError):
    """The measured system did not behave as the benchmark requires; the message says what happened."""
