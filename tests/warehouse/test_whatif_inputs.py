"""How whatif reads a side: PLATFORM[:N][/LAYOUT][@PRICE], or TARGETS+DRAFTERS."""

import pytest

from warehouse.questions.whatif_inputs import Price, SideSpec, WhatIfError, ownership_overrides, pricing_bases


def test_a_split_a_shared_layout_and_a_price():
    assert SideSpec.parse("ws-rtxpro6000-4:4/3+1") == SideSpec("ws-rtxpro6000-4", 4, "3+1")
    assert SideSpec.parse("hgx-b200-8:4/shared@3.4x") == SideSpec("hgx-b200-8", 4, "shared", Price("relative", 3.4))
    assert SideSpec.parse("hgx-b200-8/7+1").n_gpus == 8  # a split says how many GPUs


def test_drafters_on_another_platform_each_with_its_own_price():
    side = SideSpec.parse("hgx-b200-8:4@3.4x+l40s-8:2@0.9/gpu-h")
    assert (side.platform_id, side.n_gpus, side.price) == ("hgx-b200-8", 4, Price("relative", 3.4))
    assert side.drafter == SideSpec("l40s-8", 2, None, Price("gpu_hour", 0.9))
    assert SideSpec.parse("hgx-b200-8:4+l40s-8").drafter.n_gpus == 1  # one drafter unless told
    assert side.label == "hgx-b200-8:4+l40s-8:2"


@pytest.mark.parametrize(
    "text, says",
    [
        ("hgx-b200-8:4/3+1+l40s-8:1", "give counts, not a /LAYOUT"),
        ("a:1+b:1+c:1", "at most one drafter platform"),
        ("hgx-b200-8:4/half", "layout 'half'"),
        ("hgx-b200-8:4/0+4", "target GPUs in '0+4' must be above zero"),
        ("hgx-b200-8:four", "GPU count 'four'"),
        ("hgx-b200-8@0x", "price '0x' must be above zero"),
    ],
)
def test_sides_that_cannot_be_read_say_why(text, says):
    with pytest.raises(WhatIfError, match=says.replace("(", r"\(").replace("+", r"\+")):
        SideSpec.parse(text)


def test_price_bases_and_ownership_assumptions():
    assert pricing_bases("all") == ("on_demand", "spot", "reserved_1y", "reserved_3y", "owned")
    assert pricing_bases("spot") == ("spot",)
    assert ownership_overrides(years=3, utilization=None, pue=1.1) == {"ownership_years": 3, "pue": 1.1}
    with pytest.raises(WhatIfError, match="--pue must be at least 1, got 0.9"):
        ownership_overrides(pue=0.9)
