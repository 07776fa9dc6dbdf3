"""Price forms of a quotes-file row (used by sources.quotes_file).

A row gives its price in exactly one of four forms; everything here works on one row's
already-read fields and returns either a number or a (rule, detail) problem.
"""

from __future__ import annotations

HOURS_PER_YEAR = 8760

FORMS = {
    "instance": ("usd_per_instance_hour",),
    "gpu": ("usd_per_gpu_hour",),
    "relative": ("relative_to", "multiplier"),
    "ownership": (
        "purchase_usd",
        "years",
        "power_kw",
        "usd_per_kwh",
        "pue",
        "colo_usd_per_kw_month",
        "utilization",
    ),
}
OWNERSHIP_REQUIRED = ("purchase_usd", "years", "power_kw", "usd_per_kwh")
OWNERSHIP_DEFAULTS = {"pue": 1.0, "colo_usd_per_kw_month": 0.0, "utilization": 1.0}
NUMERIC = (
    "gpus_per_instance",
    "usd_per_instance_hour",
    "usd_per_gpu_hour",
    "multiplier",
    *FORMS["ownership"],
)

Problem = tuple[str, str]


def owned_usd_per_hour(
    purchase_usd: float,
    years: float,
    power_kw: float,
    usd_per_kwh: float,
    pue: float = 1.0,
    colo_usd_per_kw_month: float = 0.0,
    utilization: float = 1.0,
) -> float:
    """Effective cost of one owned instance per USEFUL hour.

    (capex per hour over the amortisation + energy incl. cooling overhead + colocation
    space/power charge per hour) / share of hours the machine does useful work.
    """
    capex = purchase_usd / years / HOURS_PER_YEAR
    energy = power_kw * pue * usd_per_kwh
    colo = colo_usd_per_kw_month * power_kw * 12 / HOURS_PER_YEAR
    return (capex + energy + colo) / utilization


def form_of(fields: dict) -> tuple[str | None, Problem | None]:
    """Which single price form the row uses."""
    used = [form for form, keys in FORMS.items() if any(fields.get(k) is not None for k in keys)]
    if not used:
        return None, (
            "quote_missing_price",
            "gives no price (usd_per_instance_hour, usd_per_gpu_hour, "
            "relative_to + multiplier, or purchase_usd + ownership fields)",
        )
    if len(used) > 1:
        return None, ("quote_multiple_price_forms", f"gives more than one price form: {', '.join(used)}")
    return used[0], None


def direct_price(form: str, fields: dict) -> tuple[float | None, Problem | None]:
    """USD per instance-hour for the forms that need no other row."""
    gpus = fields["gpus_per_instance"]
    if form == "instance":
        return fields["usd_per_instance_hour"], None
    if form == "gpu":
        return fields["usd_per_gpu_hour"] * gpus, None
    if form == "ownership":
        missing = [k for k in OWNERSHIP_REQUIRED if fields.get(k) is None]
        if missing:
            return None, ("quote_incomplete_ownership", f"ownership row lacks {', '.join(missing)}")
        args = {k: fields[k] for k in OWNERSHIP_REQUIRED}
        args |= {k: fields[k] if fields.get(k) is not None else v for k, v in OWNERSHIP_DEFAULTS.items()}
        if args["years"] <= 0:
            return None, ("quote_bad_value", "years must be > 0")
        if not 0 < args["utilization"] <= 1:
            return None, ("quote_bad_value", f"utilization {args['utilization']} is not in (0, 1]")
        if args["pue"] < 1:
            return None, ("quote_bad_value", f"pue {args['pue']} is below 1")
        return owned_usd_per_hour(**args), None
    raise ValueError(form)


def relative_target(
    me: int, ref: str, pricing: str, rows: dict[int, dict]
) -> tuple[int | None, Problem | None]:
    """Find the row a relative quote points at: by instance_type first, then by gpu_name.

    Several matches are narrowed to the same pricing model (an "on_demand" relative quote
    refers to the rented, not the owned, machine); if that still leaves a choice, the
    quote is ambiguous and rejected rather than guessed.
    """
    others = {n: r for n, r in rows.items() if n != me}
    found = [n for n, r in others.items() if r.get("instance_type") == ref]
    found = found or [n for n, r in others.items() if r.get("gpu_name") == ref]
    if not found:
        return None, ("quote_relative_not_found", f"relative_to {ref!r} matches no instance_type or gpu_name")
    if len(found) > 1:
        found = [n for n in found if rows[n].get("pricing") == pricing] or found
    if len(found) > 1:
        return None, (
            "quote_relative_ambiguous",
            f"relative_to {ref!r} matches quotes {', '.join(map(str, found))}; use an instance_type",
        )
    return found[0], None
