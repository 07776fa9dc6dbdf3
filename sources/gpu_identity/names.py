"""Reading an accelerator name as sources spell it: model, form factor, memory, flags.

One parser serves both sides of the match: a source's spelling ("NVIDIA B200-SXM-180GB",
"H100 (80 GB SXM5)", "Tesla V100-PCIE-16GB", "AMD Instinct MI325X 256GB HBM3e") and the
catalog's own ids ("B200", "H100-SXM", "V100-PCIe-16GB"), so a model key means the same
thing on both sides. Parsing only splits a name into facts; deciding which catalog GPU
those facts denote is `sources.gpu_identity`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Words that name a vendor, a brand line or marketing, never a model: dropped.
NOISE_WORDS = frozenset(
    {
        "nvidia", "amd", "intel", "tesla", "geforce", "instinct", "radeon", "quadro", "grid",
        "virtualized", "tensor", "core", "cores", "gpu", "gpus", "accelerator", "accelerators",
        "generation", "blackwell", "hopper", "grace", "superchip", "edition", "turbo", "ms",
        "maxsun", "spx", "cpx", "nvlink", "dgx",
        # cooling variants of one part: RunPod's "B300 SXM6 AC" (air), MLPerf's
        # "MI325X 256GB HBM3E DLC" (direct liquid) and "H200-SXM-141GB-CTS" (custom thermal solution)
        "ac", "dlc", "cts",
    }
)
# Form factors and editions, as sources write them -> one token per variant kind.
FORM_WORDS = {
    "sxm": "sxm", "sxm2": "sxm", "sxm3": "sxm", "sxm4": "sxm", "sxm5": "sxm", "sxm6": "sxm", "hgx": "sxm",
    "pcie": "pcie", "nvl": "nvl", "oam": "oam", "sff": "sff", "maxq": "maxq",
    "workstation": "ws", "ws": "ws", "wk": "ws", "server": "se", "se": "se", "s": "se",
}
# When a name carries several variant words the most specific wins: an "H100 NVL" is a PCIe
# card, a "Max-Q Workstation Edition" is the Max-Q part.
FORM_PRIORITY = ("maxq", "sff", "nvl", "pcie", "sxm", "oam", "ws", "se")
FORM_LABELS = {"sxm": "SXM", "pcie": "PCIe", "nvl": "NVL", "oam": "OAM", "sff": "SFF", "maxq": "Max-Q",
               "ws": "Workstation Edition", "se": "Server Edition"}

_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)(gb|g|gib)$")
_MEMORY_UNIT = frozenset({"gb", "gib"})
_MEMORY_TYPE = re.compile(r"^(hbm\d?e?|gddr\d+x?|lpddr\d+x?)$")
_POWER_OR_MODE = re.compile(r"^(\d+w|nps\d+|nvl\d+)$")  # "750W", "NPS1", rack names like "NVL72"
_GLUED_FORM = re.compile(r"^([a-z]*\d+[a-z]?)(nvl|pcie|sxm\d?)$")  # "h100nvl", "a100sxm4"
_RTX = re.compile(r"^rtx(pro)?(a?\d+)(ada|ti|s)?$")  # "rtxpro6000s", "rtx6000ada", "rtxa6000"
_MIG = re.compile(r"\bmig\s*(\d+g\.\d+gb)\b")
_COUNT_NOTE = re.compile(r"\(x\d+\)")  # MLPerf "(x32)": how many, not which
_TRADEMARK = re.compile(r"\((r|tm)\)|[®™]")
_MARKETING = re.compile(r"\bai accelerators?\b")  # Intel's "Gaudi(R) 2 AI Accelerator"; "AI 100" stays a model
_SPLIT = re.compile(r"[\s\-_/(),+:;]+")


@dataclass(frozen=True)
class ParsedName:
    """What a spelling says about the accelerator. `model` is None when nothing names a model."""

    model: str | None  # e.g. "h100", "rtx pro 6000", "mi325x"
    form: str | None  # one of FORM_PRIORITY
    memory_gb: float | None  # as written in the name ("80GB", "48G")
    memory_type: str | None  # "hbm3e", "gddr7", ...
    gpus_per_card: int  # 2 for dual-GPU boards ("Arc Pro B60 Dual"), else 1
    mig: str | None  # "1g.24gb" when the name is a MIG slice
    other_models: tuple[str, ...]  # further models when one row lists several accelerators

    @property
    def display(self) -> str:
        return display_name(self.model, self.form)


def display_name(model: str | None, form: str | None = None) -> str:
    """A model key as people write it, for messages: 'RTX 2000E Ada', 'H100 PCIe'."""
    words = [_display_word(w) for w in (model or "").split()]
    if form:
        words.append(FORM_LABELS[form])
    return " ".join(words)


def _display_word(word: str) -> str:
    if word in ("ada", "ti", "super", "jetson", "thor", "arc", "lite"):
        return word.title()
    return word.upper() if any(c.isdigit() for c in word) or len(word) <= 3 else word.title()


@lru_cache(maxsize=65536)
def parse_name(name: str) -> ParsedName:
    text = _TRADEMARK.sub(" ", name.strip().lower())
    text = re.sub(r"^\[[^\]]*\]", " ", text.strip())  # "[MAXSUN] MS-Intel ..." -> "ms-intel ..."
    text = _COUNT_NOTE.sub(" ", text).replace("max-q", "maxq")
    text = _MARKETING.sub(" ", " ".join(text.split()))
    parts = [p for p in text.split(",") if p.strip()]
    first = _parse_part(parts[0] if parts else "")
    others = tuple(
        dict.fromkeys(m for m in (_parse_part(p).model for p in parts[1:]) if m and m != first.model)
    )
    return ParsedName(first.model, first.form, first.memory_gb, first.memory_type, first.gpus_per_card,
                      first.mig, others)


def _parse_part(text: str) -> ParsedName:
    mig_match = _MIG.search(text)
    mig = mig_match.group(1) if mig_match else None
    if mig_match:
        text = _MIG.sub(" ", text)
    model: list[str] = []
    forms: set[str] = set()
    memory = memory_type = None
    gpus_per_card = 1
    tokens = [t for t in _SPLIT.split(text) if t]
    for token in _expand(tokens):
        if (m := _MEMORY.match(token)) is not None:
            memory = float(m.group(1))
        elif token in _MEMORY_UNIT and model and model[-1].replace(".", "", 1).isdigit():
            memory = float(model.pop())  # "80 GB" written apart
        elif _MEMORY_TYPE.match(token):
            memory_type = token
        elif token in FORM_WORDS and (token != "s" or model[-2:-1] == ["pro"]):
            forms.add(FORM_WORDS[token])
        elif token == "dual":
            gpus_per_card = 2
        elif token in NOISE_WORDS or _POWER_OR_MODE.match(token):
            continue
        else:
            model.append(token)
    form = next((f for f in FORM_PRIORITY if f in forms), None)
    return ParsedName(" ".join(_join_numbered(model)) or None, form, memory, memory_type, gpus_per_card, mig, ())


def _expand(tokens: list[str]) -> list[str]:
    """Split tokens that glue several words: 'rtxpro6000s', 'rtx6000ada', 'h100nvl', '6000ada', '3080ti'."""
    out: list[str] = []
    for token in tokens:
        if (m := _RTX.match(token)) is not None:
            out += ["rtx"] + (["pro"] if m.group(1) else []) + [m.group(2)] + ([m.group(3)] if m.group(3) else [])
        elif (m := _GLUED_FORM.match(token)) is not None:
            out += [m.group(1), m.group(2)]
        elif (m := re.match(r"^(\d{4}e?)(ada|ti)$", token)) is not None:  # "6000ada", "3080ti"
            out += [m.group(1), m.group(2)]
        else:
            out.append(token)
    return out


def _join_numbered(words: list[str]) -> list[str]:
    """'gaudi 3' and 'gaudi3' are one model word, as the catalog id 'Gaudi3' writes it."""
    joined: list[str] = []
    for word in words:
        if joined and joined[-1] == "gaudi" and word.isdigit():
            joined[-1] += word
        else:
            joined.append(word)
    return joined


_INSTANCE_FORM = re.compile(r"^(sxm\d?|pcie|nvl)(x\d+)?$")


@lru_cache(maxsize=65536)
def instance_form(instance_type: str) -> str | None:
    """The form factor an instance type names ('gpu_1x_h100_pcie', '1x-H100_NVL-32-65536'), if any.

    'NVLINK' (Shadeform's 'H100x8-NVLINK') is a link, not the NVL card: it does not match.
    """
    for token in re.split(r"[\s\-_./]+", instance_type.lower()):
        if (m := _INSTANCE_FORM.match(token)) is not None:
            return FORM_WORDS[m.group(1)]
    return None
