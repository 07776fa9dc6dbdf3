"""Your own price for a platform in `compare` and `serve` (issue 35, item 2), as `whatif` takes one.

`--price gb200-nvl72=10.50/gpu-h` (or `=42/system-h`, `@spot` for another basis) replaces, in
the answer's private copy only, the market's quotes of that platform's accelerator on that basis
with one quote of yours, observed on the answer's date. The models then rank it exactly as they
would rank a provider's quote, and every answer names it "your price" rather than the basis.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import duckdb

from sources.kit.contracts import MARKET_PRICING
from warehouse.questions.names import meaning
from warehouse.questions.plain_text import YOUR_PRICE, fmt_count, fmt_usd
from warehouse.questions.whatif_inputs import Price, WhatIfError

SOURCE = "your_price"
SYNTAX = "PLATFORM=PRICE[@BASIS], e.g. gb200-nvl72=10.50/gpu-h or hgx-b200-8=44/system-h@spot"


@dataclass(frozen=True)
class GivenPrice:
    typed: str  # the flag's text, kept as the quote's source_ref
    name: str  # the platform or accelerator as typed
    price: Price
    basis: str

    @classmethod
    def parse(cls, text: str) -> GivenPrice:
        name, equals, rest = text.partition("=")
        amount, _, basis = rest.partition("@")
        if not equals or not name.strip() or not amount.strip():
            raise WhatIfError(f"--price {text!r}: use {SYNTAX}")
        basis = basis.strip() or "on_demand"
        if basis not in MARKET_PRICING:
            raise WhatIfError(f"--price {text!r}: the basis is one of {', '.join(MARKET_PRICING)} (owning is priced "
                              "by --years, --utilization, --pue, --usd-per-kwh and --colo-usd-per-kw-month)")
        price = Price.parse(amount)
        if price.kind not in ("gpu_hour", "system_hour"):
            raise WhatIfError(f"--price {text!r}: give US dollars per GPU-hour (10.50/gpu-h) or per system-hour "
                              "(84/system-h); a multiple of another price needs a baseline (gpucalc whatif)")
        return cls(text, name.strip(), price, basis)


def parse_prices(texts: list[str] | None) -> list[GivenPrice]:
    return [GivenPrice.parse(text) for text in texts or []]


def apply_prices(con: duckdb.DuckDBPyConnection, given: list[GivenPrice], on: date) -> list[str]:
    """Put each price in the private copy `con` in place of the market's quotes of its platform's
    accelerator on its basis; return what each did, one sentence each."""
    notes, done = [], {}
    for g in given:
        platform_id, gpu_id, gpus_per_node = _one_platform(con, g)
        if (gpu_id, g.basis) in done:
            raise WhatIfError(f"--price {g.typed!r}: {done[gpu_id, g.basis]!r} already prices {gpu_id} on {g.basis}")
        done[gpu_id, g.basis] = g.typed
        replaced, smallest = con.execute("select count(*), min(gpus_per_instance) from price_quote "
                                         "where gpu = ? and pricing = ?", [gpu_id, g.basis]).fetchone()
        # a GPU-hour is rented in the instance the market rents the accelerator in (a GB200 tray of 4,
        # not the 72-GPU rack); a system-hour buys the platform's system
        unit = int(smallest) if g.price.kind == "gpu_hour" and smallest else gpus_per_node
        per_unit = g.price.value * unit if g.price.kind == "gpu_hour" else g.price.value
        con.execute("delete from price_quote where gpu = ? and pricing = ?", [gpu_id, g.basis])
        con.execute(
            """insert into price_quote by name
               select ? as provider, 'yours' as region, ? as instance_type, ? as gpu, ? as gpu_name,
                      ?::double as gpus_per_instance, ?::double as usd_per_instance_hour,
                      ?::double / ? as usd_per_gpu_hour, ? as pricing, 'USD' as currency, ?::date as observed_at,
                      ? as source, ? as source_ref, 'scratch' as run_id, now()::timestamp as extracted_at""",
            [YOUR_PRICE, f"{platform_id} ({YOUR_PRICE})", gpu_id, gpu_id, unit, per_unit,
             per_unit, unit, g.basis, on, SOURCE, f"--price {g.typed}"],
        )
        notes.append(f"your price: {fmt_usd(per_unit / unit)} per GPU-hour of {platform_id} "
                     f"({fmt_usd(per_unit)} per {unit}-GPU instance) on {g.basis}, in place of "
                     f"{fmt_count(replaced, f'{g.basis} quote')} of {gpu_id}")
    return notes


def _one_platform(con: duckdb.DuckDBPyConnection, g: GivenPrice) -> tuple[str, str, int]:
    """The one platform a price names, its accelerator and GPUs per system."""
    meant = meaning(con, g.name)
    if len(meant.platform_ids) != 1:
        which = ", ".join(meant.platform_ids) or "none"
        raise WhatIfError(f"--price {g.typed!r}: {meant.sentence()}; name one platform (built from it: {which})")
    platform_id = meant.platform_ids[0]
    gpus = con.execute("select gpus_per_node from platform where platform_id = ?", [platform_id]).fetchone()[0]
    return platform_id, meant.gpu_id, int(gpus)
