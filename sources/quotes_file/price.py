"""Price forms of a quotes-file row (used by sources.quotes_file).

A row gives its price in exactly one of four forms; everything here works on one row's
already-read fields and returns either a number or a (rule, detail) problem.
"""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from sources.bundled.ownership import defaults, owned_usd_per_hour
from sources.kit.rows import RowProblem, shown, usd_per_hour

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
NUMERIC = (
    "gpus_per_instance",
    "usd_per_instance_hour",
    "usd_per_gpu_hour",
    "multiplier",
    "gpu_memory_gb",
    *FORMS["ownership"],
)

Problem = tuple[str, str]


FORM_OF_KEY = {key: form for form, keys in FORMS.items() for key in keys}


def form_of(fields: dict) -> tuple[str | None, Problem | None]:
    """Which single price form the row uses (`fields` holds only the fields given)."""
    given = {FORM_OF_KEY[k] for k, v in fields.items() if k in FORM_OF_KEY and v is not None}
    used = [form for form in FORMS if form in given]
    if not used:
        return None, (
            "quote_missing_price",
            "gives no price (usd_per_instance_hour, usd_per_gpu_hour, "
            "relative_to + multiplier, or purchase_usd + ownership fields)",
        )
    if len(used) > 1:
        return None, ("quote_multiple_price_forms", f"gives more than one price form: {', '.join(used)}")
    if used[0] == "relative" and (fields.get("relative_to") is None or fields.get("multiplier") is None):
        return None, ("quote_incomplete_relative", "relative quotes need both relative_to and multiplier")
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
        args |= {k: fields[k] if fields.get(k) is not None else v for k, v in defaults().items()}
        if args["years"] <= 0:
            return None, ("quote_bad_value", "years must be > 0")
        if not 0 < args["utilization"] <= 1:
            return None, ("quote_bad_value", f"utilization {args['utilization']} is not in (0, 1]")
        if args["pue"] < 1:
            return None, ("quote_bad_value", f"pue {args['pue']} is below 1")
        return owned_usd_per_hour(**args), None
    raise ValueError(form)


class TargetIndex:
    """Where a relative quote's `relative_to` can point: quotes by instance_type, then by gpu_name,
    each also by pricing. Only the first three rows per key are kept: whether a name matches
    one quote or several is all the lookup needs, so a million-row file stays cheap."""

    KEEP = 3

    def __init__(self) -> None:
        self.keys: dict[tuple, list[int]] = {}

    def add(self, row: int, instance_type: str | None, gpu_name: str | None, pricing: str | None) -> None:
        for kind, name in (("instance", instance_type), ("gpu", gpu_name)):
            if name is None:
                continue
            for key in ((kind, name), (kind, name, pricing)):
                rows = self.keys.setdefault(key, [])
                if len(rows) < self.KEEP:
                    rows.append(row)

    def target(self, me: int, ref: str, pricing: str) -> tuple[int | None, Problem | None]:
        """The one row `ref` names: by instance_type first, then by gpu_name.

        Several matches are narrowed to the same pricing model (an "on_demand" relative quote
        refers to the rented, not the owned, machine); if that still leaves a choice, the
        quote is ambiguous and rejected rather than guessed.
        """
        for kind in ("instance", "gpu"):
            found = [n for n in self.keys.get((kind, ref), ()) if n != me]
            if not found:
                continue
            if len(found) > 1:
                found = [n for n in self.keys.get((kind, ref, pricing), ()) if n != me] or found
            if len(found) > 1:
                listed = ", ".join(map(str, found)) + (" (and maybe more)" if len(found) == self.KEEP else "")
                return None, (
                    "quote_relative_ambiguous",
                    f"relative_to {shown(ref)} matches quotes {listed}; use an instance_type",
                )
            return found[0], None
        return None, ("quote_relative_not_found", f"relative_to {shown(ref)} matches no instance_type or gpu_name")


def resolve(
    relatives: dict[int, dict], direct: pl.DataFrame, rejected: list[tuple]
) -> Iterator[tuple[int, dict, float | None, Problem | None]]:
    """Price relative quotes from their targets, following chains; cycles are rejected.

    `direct` holds the rows already priced, `rejected` (row, instance_type, gpu_name, pricing)
    the rows refused before: a quote pointing at one of those is refused too. Yields
    (row, fields, USD per instance-hour, problem) per relative quote, in row order.
    """
    refs = {f["relative_to"] for f in relatives.values()}
    index = TargetIndex()
    per_gpu: dict[int, float] = {}
    named = pl.col("instance_type").is_in(list(refs)) | pl.col("gpu_name").is_in(list(refs))
    for n, instance_type, gpu_name, pricing, usd, gpus in direct.filter(named).select(
        "source_row", "instance_type", "gpu_name", "pricing", "usd_per_instance_hour", "gpus_per_instance"
    ).iter_rows():
        index.add(n, instance_type, gpu_name, pricing)
        per_gpu[n] = usd / gpus
    for n, f in relatives.items():
        index.add(n, f["instance_type"], f["gpu_name"], f["pricing"])
    bad: dict[int, Problem] = {}
    for n, *names in rejected:
        index.add(n, *names)
        bad[n] = ("", "")  # reported already; marks the row as a target that was refused
    for start in relatives:
        if start not in bad and start not in per_gpu:
            _walk(start, relatives, index, per_gpu, bad)
    for n, f in relatives.items():
        yield n, f, (per_gpu[n] * f["gpus_per_instance"] if n not in bad else None), bad.get(n)


def _walk(start: int, relatives: dict, index: TargetIndex, per_gpu: dict, bad: dict) -> None:
    """Follow relative_to from `start` to a priced or refused quote, then price the path back."""
    path, on_path, n = [], set(), start
    while True:
        path.append(n)
        on_path.add(n)
        target, problem = index.target(n, relatives[n]["relative_to"], relatives[n]["pricing"])
        if problem:
            bad[n] = problem
            path.pop()
            break
        if target in bad or target in per_gpu:
            break
        if target in on_path:
            for m in path:
                ref = shown(relatives[m]["relative_to"])
                bad[m] = ("quote_relative_cycle", f"relative_to {ref} never resolves (cycle)")
            return
        n = target
    for n in reversed(path):
        row = relatives[n]
        target, _ = index.target(n, row["relative_to"], row["pricing"])
        if target in bad:
            bad[n] = ("quote_relative_target_rejected", f"relative_to points at rejected quote {target}")
            continue
        try:
            usd = usd_per_hour(row["multiplier"] * per_gpu[target] * row["gpus_per_instance"], "USD per instance-hour")
        except RowProblem as exc:
            bad[n] = (exc.rule, exc.detail)
            continue
        per_gpu[n] = usd / row["gpus_per_instance"]
