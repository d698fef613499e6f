"""The application shell: CLI, settings, Temporal client factory, dev stack, provider simulator."""
