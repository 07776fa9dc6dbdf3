"""Which MLPerf benchmark a results folder holds, however the submitter spelled it.

Folder spellings differ by round and submitter: `llama3.1-405b` and `llama3_1-405b`,
`llama2-70b-99` / `-99.9` (accuracy targets), `llama2-70b-interactive-99` (v5.0, where
Interactive was its own benchmark run in the Server scenario), training `llama31_405b`.
MLCommons' own submission checker maps `llama3_1-405b` to `llama3.1-405b` (model_mapping in
mlcommons/inference tools/submission), so spellings are compared with the accuracy suffix
and every separator removed. A folder is one of three kinds:

* llm: a language-model benchmark gpucalc reads (a workload prefix, or None when gpucalc has
  no workload for it yet: its rows load with workload_id null);
* out_of_scope: a recognised benchmark that is not an LLM (resnet, bert, dlrm, ...);
* unknown: a spelling not recognised at all, which may be lost data and is reported as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -99 / -99.9 (and the vision suite's -95) name accuracy targets, not models.
ACCURACY_SUFFIX = re.compile(r"-(9\d(?:\.\d+)?)$")
INTERACTIVE_SUFFIX = re.compile(r"[-_.]interactive$")
SERVING_SCENARIOS = ("Offline", "Server", "Interactive")


def squash(name: str) -> str:
    """Lower case, separators removed: `llama3_1-405b` and `llama3.1-405b` become one key."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


# Inference: squashed name -> (model, gpucalc workload prefix or None)
INFERENCE_LLM = {
    "llama270b": ("Llama-2-70B", "llama2-70b"),
    "llama318b": ("Llama-3.1-8B", "llama31-8b"),
    "llama31405b": ("Llama-3.1-405B", "llama31-405b"),
    "mixtral8x7b": ("Mixtral-8x7B", "mixtral-8x7b"),
    "deepseekr1": ("DeepSeek-R1", "deepseek-r1"),
    # language models gpucalc has no workload for yet: loaded with workload_id null
    "gptoss120b": ("gpt-oss-120b", None),
    "gptj": ("GPT-J 6B", None),
    "llama318bedge": ("Llama-3.1-8B", None),  # edge dataset and scenarios, not the datacenter job
    "qwen3vl235ba22b": ("Qwen3-VL-235B-A22B", None),
}
INFERENCE_OTHER = {
    squash(name)
    for name in (
        "resnet", "resnet50", "retinanet", "ssd-resnet34", "ssd-mobilenet", "mobilenet", "bert",
        "dlrm", "dlrm-v2", "dlrm-v3", "3d-unet", "rnnt", "stable-diffusion-xl", "rgat",
        "pointpainting", "whisper", "wan-2.2-t2v-a14b", "yolo",
    )
}
# Training: squashed name -> (model, gpucalc workload id)
TRAINING_LLM = {
    "llama270blora": ("Llama-2-70B (LoRA fine-tune)", "llama2-70b-lora"),
    "llama31405b": ("Llama-3.1-405B", "llama31-405b-pretrain"),
    "llama318b": ("Llama-3.1-8B", "llama31-8b-pretrain"),
    "gpt3": ("GPT-3 175B", "gpt3-175b-pretrain"),
}
TRAINING_OTHER = {
    squash(name)
    for name in (
        "resnet", "ssd", "retinanet", "maskrcnn", "bert", "dlrm", "dlrm_dcnv2", "unet3d", "rnnt",
        "minigo", "stable_diffusion", "rgat", "flux1", "transformer", "gnmt", "ncf",
    )
}


@dataclass(frozen=True)
class Benchmark:
    folder: str  # as spelled in the tree
    kind: str  # "llm" | "out_of_scope" | "unknown"
    model: str | None = None
    workload: str | None = None  # inference: workload prefix; training: workload id
    family: str = ""  # folders of one family (-99, -99.9, -interactive) can hold the same run
    interactive: bool = False


def classify(suite: str, folder: str) -> Benchmark:
    base = ACCURACY_SUFFIX.sub("", folder.strip())
    if suite == "training":
        key = squash(base)
        if key in TRAINING_LLM:
            return Benchmark(folder, "llm", *TRAINING_LLM[key], family=key)
        return Benchmark(folder, "out_of_scope" if key in TRAINING_OTHER else "unknown", family=key)
    interactive = bool(INTERACTIVE_SUFFIX.search(base))
    key = squash(INTERACTIVE_SUFFIX.sub("", base))
    if key in INFERENCE_LLM:
        return Benchmark(folder, "llm", *INFERENCE_LLM[key], family=key, interactive=interactive)
    return Benchmark(folder, "out_of_scope" if key in INFERENCE_OTHER else "unknown", family=key)


def served_scenario(benchmark: Benchmark, scenario: str) -> str:
    """The scenario a result measures: an `-interactive` folder's Server run is Interactive."""
    return "Interactive" if benchmark.interactive and scenario == "Server" else scenario


def workload_id(benchmark: str, scenario: str) -> str | None:
    """The gpucalc workload an MLPerf benchmark folder + scenario measures, if any."""
    if scenario == "training":
        found = classify("training", benchmark)
        return found.workload if found.kind == "llm" else None
    found = classify("inference", benchmark)
    served = served_scenario(found, scenario)
    if found.kind != "llm" or not found.workload or served not in SERVING_SCENARIOS:
        return None
    return f"{found.workload}-{served.lower()}"
