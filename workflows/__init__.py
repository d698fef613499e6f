"""Deterministic orchestration only. All I/O happens in activities."""
