"""Price tables: the token accounting turned into money, from a file the user supplies.

Prices change and differ by contract, so none are built in. The file is TOML::

    currency = "USD"                      # optional, default "USD"; printed beside amounts

    [models."gpt-4o-mini"]                # the model name exactly as seats use it
    input_per_million = "0.15"            # price of one million input (prompt) tokens
    output_per_million = "0.60"           # price of one million output (completion) tokens

Prices are decimal strings or numbers ≥ 0 and are kept as `Decimal`, so sums are exact. A model
the table does not list has no cost (shown as tokens only), never a guessed one.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from cogleague.core.errors import ConfigError

MILLION = Decimal(1_000_000)
PRICE_KEYS = ("input_per_million", "output_per_million")
CURRENCY_MAX_CHARS = 8


@dataclass(frozen=True)
class Price:
    input_per_million: Decimal
    output_per_million: Decimal

    def cost(self, input_tokens: int, output_tokens: int) -> Decimal:
        return (self.input_per_million * input_tokens
                + self.output_per_million * output_tokens) / MILLION


@dataclass(frozen=True)
class PriceTable:
    currency: str
    models: Mapping[str, Price]

    def cost(self, model: str | None, input_tokens: int, output_tokens: int) -> Decimal | None:
        """The money these tokens cost, or None when the model is not in the table."""
        price = self.models.get(model) if model is not None else None
        return None if price is None else price.cost(input_tokens, output_tokens)

    def seat_costs(self, models: Mapping[str, Any]) -> list[Decimal | None]:
        """One cost per seat of a results ``models`` section (None: not priced or no model)."""
        return [self.cost(m, int(i), int(o)) for m, i, o in
                zip(models["model"], models["input_tokens"], models["output_tokens"],
                    strict=True)]

    def format(self, amount: Decimal | None) -> str:
        return "—" if amount is None else f"{amount:.4f} {self.currency}"


def _price(where: str, value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigError("prices", f"{where} must be a decimal number ≥ 0 (got {value!r})")
    try:
        amount = Decimal(str(value))
    except InvalidOperation as exc:
        raise ConfigError("prices", f"{where} must be a decimal number ≥ 0 (got {value!r})"
                          ) from exc
    if not amount.is_finite() or amount < 0:
        raise ConfigError("prices", f"{where} must be a decimal number ≥ 0 (got {value!r})")
    return amount


def parse_prices(doc: Mapping[str, Any], source: str = "price table") -> PriceTable:
    unknown = sorted(set(doc) - {"currency", "models"})
    if unknown:
        raise ConfigError("prices", f"{source}: unknown key {unknown[0]!r} (allowed: currency, "
                                    "models)")
    currency = doc.get("currency", "USD")
    if not isinstance(currency, str) or not 1 <= len(currency) <= CURRENCY_MAX_CHARS:
        raise ConfigError("prices", f"{source}: currency must be a string of 1.."
                                    f"{CURRENCY_MAX_CHARS} characters (got {currency!r})")
    models = doc.get("models", {})
    if not isinstance(models, Mapping):
        raise ConfigError("prices", f"{source}: models must be a table ([models.\"NAME\"])")
    table: dict[str, Price] = {}
    for name, entry in models.items():
        where = f"{source}: models.{name!r}"
        if not isinstance(entry, Mapping) or sorted(entry) != sorted(PRICE_KEYS):
            raise ConfigError("prices", f"{where} must set exactly input_per_million and "
                                        "output_per_million")
        table[name] = Price(*(_price(f"{where}.{k}", entry[k]) for k in PRICE_KEYS))
    return PriceTable(currency, table)


def load_prices(path: str | Path) -> PriceTable:
    """Read a price table file; every mistake is a `ConfigError` naming file and key."""
    p = Path(path)
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError("prices", f"price table {str(p)!r} cannot be read "
                                    f"({exc.strerror or exc})") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ConfigError("prices", f"price table {str(p)!r} is not valid TOML ({exc})"
                          ) from exc
    return parse_prices(doc, f"price table {p}")


def total(amounts: Sequence[Decimal | None]) -> Decimal | None:
    """The sum of the priced amounts; None when nothing was priced."""
    priced = [a for a in amounts if a is not None]
    return sum(priced, Decimal(0)) if priced else None
