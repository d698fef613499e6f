"""Full-jitter exponential backoff with a floor (Retry-After is a floor, never shortened)."""


def full_jitter(step: int, rand: float, base_s: float = 1.0, cap_s: float = 60.0) -> float:
    """AWS 'full jitter': uniform in [0, min(cap, base * 2**step)]. `rand` in [0, 1) is the caller's."""
    ceiling = min(cap_s, base_s * float(2 ** max(0, step)))
    return max(0.0, min(1.0, rand)) * ceiling


def retry_delay(
    step: int, rand: float, floor_s: float | None = None, base_s: float = 1.0, cap_s: float = 60.0
) -> float:
    delay = full_jitter(step, rand, base_s, cap_s)
    if floor_s is not None:
        delay = max(delay, floor_s)
    return delay


# Durable waits (nothing eligible, no reset hint) climb this ladder, in seconds.
WAIT_LADDER_S = (30.0, 60.0, 300.0, 900.0, 3600.0)


def ladder_step(step: int) -> float:
    return WAIT_LADDER_S[min(max(0, step), len(WAIT_LADDER_S) - 1)]
