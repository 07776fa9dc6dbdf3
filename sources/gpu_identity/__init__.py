"""One rule for which catalog accelerator a row denotes: name + memory + form factor + instance.

Every source's load, `gpucalc predict` and `gpucalc whatif` resolve GPU names here. Decision
order, most specific first, and never a guess:

1. Instance override: the provider documents what a (provider, instance type) carries, and
   that beats whatever the name says (`gpu_instance.csv`: Azure NC A100 v4 = PCIe 80 GB).
   It may also correct the GPU count.
2. Exact alias: a spelling listed in `gpu_alias.csv` (special cases: 'RTX6000' is not an
   alias, 'costh100' is an H100), unless the row's own memory or the instance type's form
   factor contradicts it.
3. The name read by `sources.gpu_identity.names` (model, form factor, memory), narrowed over the
   catalog: same model, then form factor, then memory within a tolerance (nearest wins),
   then memory type. When several variants of one memory size remain because the row gives
   no form factor, an alias that names the model without one decides ('H100' = H100-SXM);
   such a default settles the form factor, never the memory.
4. Anything else is unresolved, with one sentence saying what is missing.

Besides `gpu`, a row learns `gpus_per_instance_override` (an override's count, else null)
and `gpus_per_accelerator`: 2 when the source counts dual-GPU boards (MLPerf's "Arc Pro B60
Dual"), so the load multiplies its GPU count. Pure functions over Polars: no DuckDB, no Prefect.

The rule is here; names.py reads a spelling into facts, match.py narrows a model's variants.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

import polars as pl

from sources.gpu_identity.match import CatalogGpu, consistent, narrow
from sources.gpu_identity.names import display_name, instance_form, parse_name

RESULT_SCHEMA: dict[str, pl.DataType] = {
    "gpu": pl.String,
    "gpus_per_instance_override": pl.Float64,
    "gpus_per_accelerator": pl.Int64,
    "gpu_resolution": pl.String,
    "gpu_unresolved": pl.String,
}
KEY_COLUMNS = ("gpu_name", "gpu_memory_gb", "provider", "instance_type")


@dataclass(frozen=True)
class Resolution:
    gpu: str | None
    resolution: str | None  # how it resolved, e.g. "alias 'h100 80gb hbm3'"
    unresolved: str | None  # why not, one sentence; None when resolved
    gpus_per_instance_override: float | None = None  # an instance override corrects the count
    gpus_per_accelerator: int = 1  # catalog GPUs in one accelerator the source counts (dual cards: 2)


@dataclass(frozen=True)
class _Override:
    provider: str
    pattern: str  # lower case; '*' matches anything
    gpu_id: str
    gpus_per_instance: float | None

    @property
    def specificity(self) -> tuple[int, int]:
        return (0 if "*" in self.pattern else 1, len(self.pattern.replace("*", "")))


@dataclass(frozen=True, eq=False)
class GpuCatalog:
    """The catalog tables the resolver reads (frames as `sources.bundled.catalog.load_table` returns them)."""

    gpus: pl.DataFrame
    aliases: pl.DataFrame
    instances: pl.DataFrame
    _by_id: dict[str, CatalogGpu] = field(default_factory=dict, repr=False, compare=False)
    _by_model: dict[str, list[CatalogGpu]] = field(default_factory=dict, repr=False, compare=False)
    _alias: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    _defaults: dict[str, dict[str, str]] = field(default_factory=dict, repr=False, compare=False)
    _overrides: dict[str, list[_Override]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_frames(cls, gpu: pl.DataFrame, gpu_alias: pl.DataFrame, gpu_instance: pl.DataFrame) -> GpuCatalog:
        catalog = cls(gpu, gpu_alias, gpu_instance)
        for row in gpu.iter_rows(named=True):
            parsed = parse_name(row["gpu_id"])
            memories = tuple(m for m in (row.get("memory_gb"), row.get("memory_usable_gb")) if m)
            memory_type = (row.get("memory_type") or "").lower().split(" ")[0] or None
            entry = CatalogGpu(row["gpu_id"], parsed.model, parsed.form, memories, memory_type)
            catalog._by_id[entry.gpu_id] = entry
            if entry.model:
                catalog._by_model.setdefault(entry.model, []).append(entry)
        for alias, gpu_id in zip(gpu_alias["alias"], gpu_alias["gpu_id"], strict=True):
            if not alias or gpu_id not in catalog._by_id:
                continue
            key = alias.strip().lower()
            catalog._alias[key] = gpu_id
            parsed = parse_name(alias)
            # an alias naming the model without a form factor declares that model's default variant
            if parsed.form is None and parsed.model == catalog._by_id[gpu_id].model and parsed.model:
                catalog._defaults.setdefault(parsed.model, {})[key] = gpu_id
        for row in gpu_instance.iter_rows(named=True):
            if row.get("gpu_id") not in catalog._by_id:
                continue
            override = _Override(
                row["provider"].strip().lower(), row["instance_type"].strip().lower(), row["gpu_id"],
                row.get("gpus_per_instance"),
            )
            catalog._overrides.setdefault(override.provider, []).append(override)
        for overrides in catalog._overrides.values():
            overrides.sort(key=lambda o: o.specificity, reverse=True)
        return catalog


def resolve_name(
    name: str | None,
    catalog: GpuCatalog,
    *,
    memory_gb: float | None = None,
    provider: str | None = None,
    instance_type: str | None = None,
) -> Resolution:
    """Which catalog accelerator `name` denotes, given what else the row says."""
    override = _override(catalog, provider, instance_type)
    if override is not None:  # the instance type decides even when the name is missing or wrong
        how = f"instance {provider} {instance_type}"
        if "*" in override.pattern:
            how += f" (pattern {override.pattern})"
        per_card = parse_name(name).gpus_per_card if name else 1
        return Resolution(override.gpu_id, how, None, override.gpus_per_instance, per_card)
    if name is None or not name.strip():
        return Resolution(None, None, "no GPU name")
    parsed = parse_name(name)
    quoted = f"'{name.strip()}'"
    if parsed.other_models:
        models = ", ".join(display_name(m) for m in (parsed.model or "?",) + parsed.other_models)
        return Resolution(None, None, f"{quoted}: several accelerator models in one row ({models}); "
                          "a row must describe one kind of GPU")
    if parsed.mig:
        return Resolution(None, None, f"{quoted}: a MIG slice ({parsed.mig}) of {parsed.display}, not a whole GPU; "
                          "slices are not modelled")
    per_card = parsed.gpus_per_card
    row_memory = memory_gb / per_card if memory_gb else None
    row_form = instance_form(instance_type) if instance_type else None
    alias = catalog._alias.get(name.strip().lower())
    if alias is not None and consistent(catalog._by_id[alias], row_memory, row_form):
        return Resolution(alias, f"alias '{name.strip().lower()}'", None, None, per_card)
    memory = parsed.memory_gb / per_card if parsed.memory_gb else row_memory
    form = parsed.form or row_form
    model = parsed.model or ""
    gpu, how, why = narrow(catalog._by_model.get(model, []), catalog._defaults.get(model, {}), parsed, memory, form)
    if gpu is None:
        return Resolution(None, None, f"{quoted}: {why}")
    return Resolution(gpu, how, None, None, per_card)


def resolve_gpus(frame: pl.DataFrame, catalog: GpuCatalog) -> pl.DataFrame:
    """`frame` (same rows, same order) plus the RESULT_SCHEMA columns.

    Each distinct (gpu_name, gpu_memory_gb, provider, instance_type) is resolved once and
    joined back, so 100k quotes cost as much as their few hundred distinct spellings. Memory
    is compared at 0.1 GB (a tolerance of 10 % makes finer steps meaningless), which keeps
    marketplace noise (24564 vs 24576 MiB) from multiplying the distinct keys.
    """
    def key(column: str) -> pl.Expr:
        value = pl.col(column) if column in frame.columns else pl.lit(None)
        if column == "gpu_memory_gb":
            return value.cast(pl.Float64).round(1).alias(f"_{column}")
        return value.cast(pl.String).alias(f"_{column}")

    keys = frame.select([key(c) for c in KEY_COLUMNS])
    distinct = keys.unique(maintain_order=True)
    results = [
        resolve_name(n, catalog, memory_gb=m, provider=p, instance_type=i)
        for n, m, p, i in distinct.iter_rows()
    ]
    resolved = distinct.with_columns(
        pl.Series("gpu", [r.gpu for r in results], pl.String),
        pl.Series("gpus_per_instance_override", [r.gpus_per_instance_override for r in results], pl.Float64),
        pl.Series("gpus_per_accelerator", [r.gpus_per_accelerator for r in results], pl.Int64),
        pl.Series("gpu_resolution", [r.resolution for r in results], pl.String),
        pl.Series("gpu_unresolved", [r.unresolved for r in results], pl.String),
    )
    key_names = [f"_{c}" for c in KEY_COLUMNS]
    joined = keys.join(resolved, on=key_names, how="left", nulls_equal=True, maintain_order="left")
    base = frame.drop([c for c in RESULT_SCHEMA if c in frame.columns])
    return pl.concat([base, joined.select(list(RESULT_SCHEMA))], how="horizontal")


def _override(catalog: GpuCatalog, provider: str | None, instance_type: str | None) -> _Override | None:
    if not provider or not instance_type:
        return None
    instance = instance_type.strip().lower()
    for override in catalog._overrides.get(provider.strip().lower(), ()):
        if fnmatch.fnmatchcase(instance, override.pattern):
            return override
    return None
