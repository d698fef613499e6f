"""A local provider simulator: a real HTTP server with an OpenAI-compatible surface per simulated provider."""
