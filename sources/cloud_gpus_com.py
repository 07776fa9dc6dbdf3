"""cloud-gpus.com's archived `cloud_gpu.json` (file-only).

cloud-gpus/cloud-gpus.github.io `cloud_gpu.json` (repo archived, last change 2025-09,
licence not stated; price_sources.md §1.12) is a WIDE table: `{"data": [...]}` with one
object per provider and one "cost<gpu>" key per accelerator, valued "$3.06" or "-":

    {"name": "Amazon AWS", "region": "Worldwide", "costa100_80": "$5.12", "costh100": "-", ...}

Prices are per GPU-hour: the site lists one hourly price per GPU model, and the file's
numbers are AWS/Oracle 8-GPU instance prices divided by 8 (AWS costa100_80 "$5.12" =
p4de.24xlarge 40.97 / 8, costa100_40 "$4.096" = p4d.24xlarge 32.77 / 8; Oracle costh100
"$10.00" = BM.GPU.H100.8 80.00 / 8) and single-GPU prices elsewhere (AWS costv100 "$3.06" =
p3.2xlarge). So each price becomes one on_demand row with gpus_per_instance 1,
instance_type "1x <gpu_name>", region "global" (the file's `region` is prose such as
"Worldwide" or "Finland, Iceland"). provider = `name` lowercased with spaces as '-'
("Amazon AWS" -> "amazon-aws"). "-" means not offered (no row); an empty or otherwise
unparseable value is a Reject. source_row is the provider's position in `data` (1-based).
gpu_memory_gb only where the key names it (costa100_40, costa100_80).
"""

from __future__ import annotations

import json
import re
from datetime import date

from sources.kit.contracts import PRICE_QUOTE
from sources.kit.records import Rejects
from sources.kit.rows import Frame, RowProblem, number, price_row, shown
from sources.kit.spec import Parsed, Payload, SourceError, SourceSpec, file_only, file_ref

NAME = "cloud_gpus_com"
MAX_BYTES = 4 * 1024 * 1024  # the 2025-09 file is 43 KB
PRICE = re.compile(r"^\$\s*(\d+(?:\.\d*)?|\.\d+)$")
NOT_OFFERED = "-"

# cost key -> gpu_name spelling (resolved through sources/data/gpu_alias.csv like any other
# source's spelling). Every key in the 2025-09 file is either here or in SKIPPED. Spellings
# marked * are for GPUs gpucalc does not model: rows are loaded and the warehouse rejects
# them as unknown_gpu, which is the honest answer.
GPU_NAMES = {
    "costh100": "H100",  # clouds' H100 = SXM5 80 GB (gpu_alias convention)
    "costh200": "H200",  # SXM 141 GB
    "costb200": "B200",
    "costhb200": "HGX B200",  # DataCrunch only; "hb200" read as HGX B200 (any B200 is the SXM part)
    "costa100_40": "A100-40GB",
    "costa100_80": "A100-80GB",  # some providers behind it are PCIe 80 GB (gpu_alias note)
    "costv100": "V100",  # 16 GB convention, as SkyPilot
    "costt4": "T4",
    "costl4": "L4",
    "costl40s": "L40S",
    "costl40": "L40",  # *
    "costa10": "A10",
    "costa30": "A30",  # *
    "costa40": "A40",
    "costa6000": "RTX A6000",
    "costa5000": "RTX A5000",  # *
    "costrtx6000ada": "RTX 6000 Ada",
    "costrtxpro6000": "RTX PRO 6000",  # Server Edition by the gpu_alias convention for rentals
    "cost5090": "RTX 5090",
    "cost4090": "RTX 4090",
    "cost3090": "RTX 3090",  # *
    "cost3080": "RTX 3080",  # *
    "costmi300x": "MI300X",
    "costmi325x": "MI325X",
    "costmi250x": "MI250X",  # *
    "costk80": "K80",  # *
    "costm60": "M60",  # *
    "costp100": "P100",  # *
    "costp4": "P4",  # *
    "costp4000": "Quadro P4000",  # *
    "costp5000": "Quadro P5000",  # *
    "costp6000": "Quadro P6000",  # *
}
# Keys that name the memory (GB per GPU); the others do not say.
MEMORY_GB = {"costa100_40": 40.0, "costa100_80": 80.0}
# Keys deliberately not loaded because the GPU behind them is ambiguous (all unmodelled
# parts in any reading, so nothing estimable is lost):
SKIPPED = {
    "costrtx6000": "Quadro RTX 6000 (Linode) or RTX 6000 Ada (DigitalOcean's $1.89 matches its Ada price)",
    "costrtx4000": "Quadro RTX 4000 or RTX 4000 Ada (DigitalOcean sells the Ada card)",
    "costrtx5000": "Quadro RTX 5000 or RTX 5000 Ada",
    "cost2080": "RTX 2080 or 2080 Ti",
    "cost1080": "GTX 1080 or 1080 Ti",
    "costml100": "probably a typo for MI100 (LeaderGPU only); not guessed",
}


fetch = file_only(NAME)


def _providers(payload: Payload) -> list:
    try:
        data = json.loads(payload.body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SourceError(NAME, f"{payload.url}: body is not JSON ({shown(str(exc), 120)})") from None
    providers = data.get("data") if isinstance(data, dict) else data
    if not isinstance(providers, list):
        raise SourceError(NAME, f"{payload.url}: no 'data' list of providers")
    if not providers:
        raise SourceError(NAME, f"{payload.url}: empty provider list")
    dicts = [p for p in providers if isinstance(p, dict)]
    if not any("name" in p for p in dicts):
        raise SourceError(NAME, f"{payload.url}: field 'name' missing from every provider")
    if not any(k.startswith("cost") for p in dicts for k in p):
        raise SourceError(NAME, f"{payload.url}: no 'cost<gpu>' price keys in any provider")
    return providers


def _price(value) -> float | None:
    """'$3.06' -> 3.06; None for '-' (not offered); RowProblem for anything else."""
    if isinstance(value, str) and value.strip() == NOT_OFFERED:
        return None
    match = PRICE.match(value.strip().replace(",", "")) if isinstance(value, str) else None
    usd = number(match[1], "price") if match else None
    if usd is None or usd <= 0:
        raise RowProblem("cloud_gpus_com_unparseable_price", "not '$<number>' (per GPU-hour) or '-'")
    return usd


def _entry_rows(i: int, entry, ref: str, observed_at: date, frame: Frame, rejects: Rejects) -> None:
    if not isinstance(entry, dict):
        raise RowProblem("cloud_gpus_com_bad_provider", f"provider {i} is not an object")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RowProblem("cloud_gpus_com_missing_name", f"provider {i} has no name")
    provider = re.sub(r"\s+", "-", name.strip().lower())
    for key, value in entry.items():
        if not key.startswith("cost") or key in SKIPPED:
            continue
        with rejects.guard(i, {"name": name, key: value}, f"provider {i} ({shown(name)}) {key}={shown(value)}:"):
            if key not in GPU_NAMES:
                if value != NOT_OFFERED:
                    raise RowProblem("cloud_gpus_com_unknown_key", "no gpu_name mapping for this key")
                continue
            usd = _price(value)
            if usd is None:
                continue
            gpu = GPU_NAMES[key]
            frame.add(price_row(
                provider=provider, region="global", zone=None, instance_type=f"1x {gpu}", gpu_name=gpu,
                gpus_per_instance=1.0, usd_per_instance_hour=usd, pricing="on_demand", observed_at=observed_at,
                source=NAME, source_ref=ref, source_row=i, gpu_memory_gb=MEMORY_GB.get(key),
            ))


def parse(payload: Payload, observed_at: date) -> Parsed:
    ref = file_ref(payload)
    rejects = Rejects(NAME)
    frame = Frame(PRICE_QUOTE, NAME)
    for i, entry in enumerate(_providers(payload), start=1):
        with rejects.guard(i, entry, ""):
            _entry_rows(i, entry, ref, observed_at, frame, rejects)
    return Parsed(frame.finish(), rejects.result())


SPEC = SourceSpec(
    name=NAME,
    kind="prices",
    description="cloud-gpus.com archived cloud_gpu.json (2025-09): on-demand per GPU-hour by provider",
    key_env=None,
    fetch=fetch,
    parse=parse,
    live=False,
    max_bytes=MAX_BYTES,
)
