"""The shape of a what-if answer: each candidate compared with the baseline, on every price basis asked for."""

from __future__ import annotations

from dataclasses import dataclass, field

from warehouse.questions.whatif import SideResult


@dataclass
class CostComparison:
    basis: str  # the price basis both sides are priced on
    ratio: float | None  # candidate cost / baseline cost
    ratio_range: tuple[float, float | None] | None  # high None: no upper bound
    cheaper: str  # "yes" | "no" | "uncertain" | "unknown (...)"
    # where the verdict flips: the candidate's price (per GPU-hour, or as a multiple of the
    # baseline's) and its speed, as a share of the estimate, at which both cost the same
    break_even_price: str = ""
    break_even_speed: float | None = None


@dataclass
class Comparison:
    candidate: SideResult
    speedup: float  # baseline time / candidate time
    speedup_range: tuple[float, float] | None  # None: the candidate's error is unvalidated
    faster: str  # "yes" | "no" | "uncertain"
    costs: dict[str, CostComparison] = field(default_factory=dict)  # per price basis
    notes: list[str] = field(default_factory=list)
    # the first basis asked for, for callers that read one (`costs` holds every basis)
    cost_ratio: float | None = None
    cost_ratio_range: tuple[float, float | None] | None = None
    cheaper: str = ""


@dataclass
class Answer:
    workload: dict
    baseline: SideResult
    comparisons: list[Comparison]
    assumptions: list[str] = field(default_factory=list)
    pricing: tuple[str, ...] = ("on_demand",)
