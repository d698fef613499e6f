"""All I/O: session start/run, route state, persistence calls."""
