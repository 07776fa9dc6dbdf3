"""EC2 GPU instance families -> GPU, and which offer-file rows are a Linux GPU rental price.

The offer file has a `GPU` column (count) but no GPU model, so the model comes from the
family. Facts from AWS's accelerated-computing instance pages (aws.amazon.com/ec2/instance-types)
and SkyPilot's aws vms.csv (names spelled as SkyPilot spells them, price_sources.md §2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from sources.kit.rows import RowProblem, gpu_count, number

SOURCE = "aws_pricelist"

GPU_FAMILIES: dict[str, str] = {
    "p3": "V100", "p3dn": "V100-32GB", "p4d": "A100", "p4de": "A100-80GB", "p5": "H100",
    "p5e": "H200", "p5en": "H200", "p6-b200": "B200", "p6-b300": "B300", "p6e-gb200": "GB200",
    "g4dn": "T4", "g5": "A10G", "g6": "L4", "gr6": "L4", "g6f": "L4", "gr6f": "L4", "g6e": "L40S",
    "g7e": "RTX PRO 6000 Server",
}

# Published GPUs per size; a `GPU` column that disagrees is rejected, one that is empty falls
# back to this table.
_SINGLE = ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")
KNOWN_COUNTS: dict[str, float] = {
    "p3.2xlarge": 1, "p3.8xlarge": 4, "p3.16xlarge": 8, "p3dn.24xlarge": 8,
    "p4d.24xlarge": 8, "p4de.24xlarge": 8, "p5.4xlarge": 1, "p5.48xlarge": 8,
    "p5e.48xlarge": 8, "p5en.48xlarge": 8, "p6-b200.48xlarge": 8, "p6-b300.48xlarge": 8,
    "p6e-gb200.36xlarge": 4, "g4dn.12xlarge": 4, "g4dn.metal": 8, "gr6.4xlarge": 1, "gr6.8xlarge": 1,
    **{f"{family}.{size}": 1 for family in ("g4dn", "g5", "g6", "g6e") for size in _SINGLE},
    **{f"{family}.{size}": n for family in ("g5", "g6", "g6e") for size, n in
       (("12xlarge", 4), ("24xlarge", 4), ("48xlarge", 8))},
}
# g6f/gr6f are L4 slices; AWS reports Count 1 with the memory scaled (price_sources.md §1.2),
# so the fraction comes from AWS's G6f size table (1/8, 1/8, 1/4, 1/2), never from the count.
FRACTIONAL: dict[str, float] = {
    "g6f.large": 0.125, "g6f.xlarge": 0.125, "g6f.2xlarge": 0.25, "g6f.4xlarge": 0.5,
    "gr6f.4xlarge": 0.5,
}

# A raw line worth parsing: a field that starts with a GPU family's instance name (Instance
# Type is never the first column). A cheap pre-filter only; `keep` decides.
GPU_LINE = re.compile(
    rb'[",](?:' + b"|".join(re.escape(f.encode()) for f in sorted(GPU_FAMILIES, key=len, reverse=True))
    + rb')\.[0-9a-z]'
)


def keep(row: Mapping[str, str]) -> bool:
    """Linux, no pre-installed software, a used (not reservation-placeholder) instance of a GPU
    family on shared or host tenancy: SkyPilot fetch_aws's filter (price_sources.md §1.2)."""
    return (
        row["Instance Type"].split(".", 1)[0] in GPU_FAMILIES
        and row["TermType"] in ("OnDemand", "Reserved")
        and row["Operating System"] == "Linux"
        and row["Pre Installed S/W"] in ("NA", "")
        and row["CapacityStatus"] == "Used"
        and row["Tenancy"] in ("Shared", "Host")
    )


def gpu_for(row_no: int, row: Mapping[str, str]) -> tuple[str, float]:
    """(GPU, count) for a kept row; RowProblem when the count is missing or contradicts AWS's sizes."""
    instance = row["Instance Type"]
    gpu = GPU_FAMILIES[instance.split(".", 1)[0]]
    if instance in FRACTIONAL:
        return gpu, FRACTIONAL[instance]
    text = row.get("GPU", "").strip()
    known = KNOWN_COUNTS.get(instance)
    try:
        count = number(text, "GPU", "unparseable_gpu_count") if text not in ("", "NA") else known
    except RowProblem as exc:
        raise RowProblem(exc.rule, f"row {row_no}: GPU {text[:40]!r} is not a number") from None
    if count is None or count <= 0:
        raise RowProblem("missing_gpu_count", f"row {row_no}: no GPU count for {instance}")
    if known is not None and count != known:
        detail = f"row {row_no}: {instance} has {known:g} GPUs, offer file says {count:g}"
        raise RowProblem("gpu_count_mismatch", detail)
    return gpu, gpu_count(float(count), "GPU")
