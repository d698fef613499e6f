"""What a turn's tokens cost in USD: the workspace's own price for the model (`prices:`, routing.usage.ModelPrice)
when it lists one, else pydantic's maintained price table (genai-prices, its bundled snapshot: no network), else
unknown (None), never a guess."""

import logging
from collections.abc import Mapping
from functools import lru_cache

import genai_prices
from genai_prices import data_snapshot

from routing.usage import ModelPrice, Usage, override_for

log = logging.getLogger(__name__)
PRICE_TABLE = f"genai-prices {genai_prices.__version__}"


def cost_usd(provider: str, model: str | None, usage: Usage | None, prices: Mapping[str, ModelPrice]) -> float | None:
    """The USD cost of `usage` on `model`; None when there is no usage, no model, or no price for it."""
    if usage is None or not model:
        return None
    override = override_for(prices, provider, model)
    if override is not None:
        return override.cost(usage)
    return _table_cost(provider, model, usage)


def _table_cost(provider: str, model: str, usage: Usage) -> float | None:
    table_usage = genai_prices.Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens or None,
        cache_write_tokens=usage.cache_write_tokens or None,
    )
    # The workspace's provider name may be the table's provider id ("openai", "anthropic"); else the model decides.
    for provider_id in (provider, None) if _known_provider(provider) else (None,):
        try:
            return float(genai_prices.calc_price(table_usage, model, provider_id=provider_id).total_price)
        except LookupError:
            continue
        except Exception:  # a table that cannot price this usage (e.g. a tier it does not cover): unknown
            log.warning("the price table could not price %s on %s", model, provider, exc_info=True)
            return None
    return None


@lru_cache(maxsize=256)
def _known_provider(provider: str) -> bool:
    """Whether the price table has a provider of this id (a workspace's provider may be named anything)."""
    return any(p.id == provider for p in data_snapshot.get_snapshot().providers)
