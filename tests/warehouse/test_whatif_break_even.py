"""Where a what-if's cost verdict flips: a candidate's cost scales with its price and inversely
with its speed, so both break even at 1 / (candidate cost / baseline cost)."""

from warehouse.questions.whatif import SideResult
from warehouse.questions.whatif_answer import CostComparison
from warehouse.questions.whatif_compare import _break_even
from warehouse.questions.whatif_price import PricePoint
from warehouse.questions.whatif_text import _break_even_words


def side(n_gpus: int, drafters: str | None = None) -> SideResult:
    return SideResult("candidate 1", "hgx-b200-8", "B200", n_gpus, "tp1", "compute", 1000.0, None, None, 10.0,
                      10.0 * n_gpus, None, None, "", "default", "documented efficiencies",
                      drafter_platform_id=drafters)


def test_a_price_given_per_gpu_hour_breaks_even_at_that_price_over_the_cost_ratio():
    point = PricePoint("given", "given", 40.0, 400.0, "")  # 8 GPUs at $5.00 per GPU-hour
    assert _break_even(0.8, point, side(8)) == ("$6.25 per GPU-hour (priced at $5.00)", 0.8)


def test_a_multiple_of_the_baselines_price_breaks_even_at_the_multiple_over_the_cost_ratio():
    point = PricePoint("given", "given", None, None, "", base_gpu_hours=136.0, multiple=3.4)
    price, speed = _break_even(3.4 / 4.47, point, side(4))  # 4 GPUs at 3.4x, 4.47x as fast as 4 GPUs
    assert price == "4.47x the baseline's per-GPU price"
    cost = CostComparison("on_demand", 3.4 / 4.47, None, "yes", price, speed)
    assert _break_even_words(cost) == ("stays cheaper below 4.47x the baseline's per-GPU price, or above 76% of "
                                       "the speed estimated (the model 24% optimistic)")


def test_a_dearer_candidate_says_what_would_make_it_cheaper():
    point = PricePoint("on_demand", "estimate", 40.0, 500.0, "")
    price, speed = _break_even(1.25, point, side(8))
    assert price == "$4.00 per GPU-hour (priced at $5.00)"
    assert _break_even_words(CostComparison("on_demand", 1.25, None, "no", price, speed)) == (
        "would be cheaper below $4.00 per GPU-hour (priced at $5.00), or at 1.25x the speed estimated")


def test_a_two_platform_side_breaks_even_at_a_share_of_its_whole_price():
    point = PricePoint("given", "given", 50.0, 500.0, "")
    assert _break_even(0.96, point, side(6, drafters="srv-rtxpro6000-8")) == ("1.04x its price", 0.96)


def test_a_band_of_100_percent_or_more_leaves_the_cost_without_an_upper_bound():
    from warehouse.questions.whatif_compare import _cost
    from warehouse.questions.whatif_text import _ratio_span

    base, cand = side(8), side(8)
    # 1,000 tokens/s within ±120%: at least none, at most 2,200
    cand.tokens_low, cand.tokens_high = 0.0, 2200.0
    base.prices["on_demand"] = PricePoint("on_demand", "estimate", 40.0, 400.0, "")
    cand.prices["on_demand"] = PricePoint("on_demand", "estimate", 40.0, 200.0, "")
    cost = _cost("on_demand", base, cand)
    assert cost.ratio == 0.5 and cost.ratio_range == (0.5 * 1000 / 2200, None)
    assert cost.cheaper == "uncertain"  # it may cost any multiple of the baseline
    assert _ratio_span(cost.ratio_range) == " (0.23x or more)"
