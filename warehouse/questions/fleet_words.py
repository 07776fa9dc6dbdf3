"""A fleet in words: how many GPUs of what, and the systems they fill ("8x H100 SXM (1 HGX H100
server)", "16 GPUs (4 trays of one GB200 NVL72 rack)").

Takes what the catalog says of a platform (the GPUs in one system, in one scale-up domain, its
name) and, where a provider rents less than a system, the GPUs of one rented unit. The report's
front page says fleets this way; plain text, so reports/ escapes it.
"""

from __future__ import annotations

import re

from warehouse.questions.plain_text import fmt_count

# What one system of a platform is, as its catalog name says it; the first found wins ("Server:
# 8x RTX PRO 6000 Blackwell Server Edition" is a server, "TPU v6e (Trillium) pod of 256 chips" a pod).
SYSTEM_NOUNS = ("rack", "pod", "slice", "workstation", "server", "platform")
# The part of a rack-scale system a provider rents: a GB200/GB300 compute tray, a TPU host.
PART_NOUNS = {"rack": "tray", "pod": "host", "slice": "host"}
# GPUs on one server board: a scale-up domain wider than this spans a rack or a pod.
BOARD_GPUS = 8


def gpu_words(gpu_id: str) -> str:
    """The accelerator as people write it: its catalog id with spaces ('H100-SXM' -> 'H100 SXM')."""
    return gpu_id.replace("-", " ")


def system_words(platform_name: str) -> str:
    """One system of a platform, named short from its catalog name and ending in what it is:
    'HGX H100 8-GPU (DGX H100 class)' -> 'HGX H100 server', 'GB200 NVL72 rack (72 GPUs, 36 Grace)'
    -> 'GB200 NVL72 rack'."""
    noun = next((n for n in SYSTEM_NOUNS if re.search(rf"\b{n}\b", platform_name.lower())), "server")
    base = re.split(r" \(|, | on ", platform_name, maxsplit=1)[0]
    base = re.sub(r"^(Server|Workstation):\s*", "", base)
    base = re.sub(r"^\d+x\s+", "", base)  # "8x L40S": the count is the fleet's to say
    base = re.sub(r"\s+\d+-(GPU|accelerator)\b", "", base)
    base = re.sub(r"\s+(Server|Workstation) Edition$", "", base)
    return base if base.lower().endswith(noun) else f"{base} {noun}"


def fleet_words(gpus: int, gpu: str, system: str, gpus_per_node: int, domain_gpus: int,
                unit_gpus: int | None = None) -> str:
    """`gpus` GPUs of accelerator `gpu` on a platform whose system (`system`, as system_words says
    it) holds `gpus_per_node` GPUs in scale-up domains of `domain_gpus`; `unit_gpus`: the GPUs of
    the unit a provider rents, where that is less than a system (a tray, a 2-GPU instance)."""
    rack_scale = gpus_per_node > BOARD_GPUS and domain_gpus >= gpus_per_node
    lead = f"{gpus} GPUs" if rack_scale else f"{gpus}x {gpu}"  # a rack's name already names its accelerator
    systems = -(-gpus // gpus_per_node)
    part = unit_gpus if unit_gpus and unit_gpus < gpus_per_node and gpus % unit_gpus == 0 else None
    noun = system.rsplit(" ", 1)[-1]
    if gpus % gpus_per_node == 0:
        detail = fmt_count(systems, system)
    elif part and noun in PART_NOUNS:
        where = f"one {system}" if systems == 1 else _plural(system)
        detail = f"{fmt_count(gpus // part, PART_NOUNS[noun])} of {where}"
    elif systems == 1:
        detail = f"{gpus} of {gpus_per_node} GPUs of one {system}"
    elif part:
        detail = f"{fmt_count(gpus // part, f'{part}-GPU instance')} of {_plural(system)}"
    else:
        detail = f"on {fmt_count(systems, system)}"
    if domain_gpus < min(gpus, gpus_per_node):
        detail += f"; scale-up in groups of {domain_gpus}"
    return f"{lead} ({detail})"


def _plural(noun: str) -> str:
    return noun + "s"
