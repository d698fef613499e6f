"""Pure routing domain: no I/O, safe to import inside the Temporal workflow sandbox."""
