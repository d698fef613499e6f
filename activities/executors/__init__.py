"""Executors speak to providers. They raise ProviderCallError carrying the raw failure signal."""
