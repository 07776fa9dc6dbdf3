"""Rent, buy or API: the choices for a job, each on its own price basis (`gpucalc compare`),
and serving sized to a demand the user states (`gpucalc serve`).

Reads the `decision` and `platform_choice` marts; a question that changes inputs (your own
serving demand, ownership terms) is answered in a private copy of the warehouse, never in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import duckdb
import polars as pl

from warehouse.build.rebuild import rebuild_estimates
from warehouse.questions.whatif_inputs import check_dtype
from warehouse.store.sql_text import sql_text

YOUR_SERVING = "your-serving"


class DecideError(ValueError):
    """A question that cannot be answered as asked (unknown workload or model, a bad number)."""


@dataclass(frozen=True)
class Demand:
    """A serving job as a user states it: a model, a demand and an SLA."""

    model_id: str
    tokens_per_s: float  # output tokens per second the fleet must sustain
    input_len: float
    output_len: float
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    dtype: str = "fp8"
    scenario: str = "Server"  # Poisson arrivals: requests in flight vary
    # speculative decoding, as a workload states it: the drafter, tokens drafted per step and
    # tokens kept per step (the verified one included); none of them: no drafting
    draft_model: str | None = None
    draft_tokens: int | None = None
    accepted_per_step: float | None = None

    @property
    def drafts(self) -> bool:
        return self.draft_model is not None

    def check(self) -> None:
        for name, flag in (("tokens_per_s", "--demand"), ("input_len", "--input-len"), ("output_len", "--output-len")):
            if not 0 < getattr(self, name) < math.inf:
                raise DecideError(f"{flag} must be a finite number above zero, got {getattr(self, name):g}")
        for name in ("ttft_ms", "tpot_ms"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise DecideError(f"--{name.replace('_', '-')} must be above zero, got {value:g}")
        check_dtype(self.dtype)
        self._check_drafting()

    def _check_drafting(self) -> None:
        given = [v is not None for v in (self.draft_model, self.draft_tokens, self.accepted_per_step)]
        if any(given) and not all(given):
            raise DecideError("speculative decoding takes all three: --draft-model M --draft-tokens N "
                              "--accepted-per-step X (e.g. deepseek-r1-mtp-module, 1, 1.92)")
        if not self.drafts:
            return
        if not 1 <= self.draft_tokens <= 64:
            raise DecideError(f"--draft-tokens must be a whole number from 1 to 64, got {self.draft_tokens}")
        if not 1 <= self.accepted_per_step <= self.draft_tokens + 1:
            raise DecideError(f"--accepted-per-step counts the verified token too: from 1 to --draft-tokens + 1 "
                              f"= {self.draft_tokens + 1}, got {self.accepted_per_step:g}")


def add_demand(con: duckdb.DuckDBPyConnection, demand: Demand) -> str:
    """Add the user's serving job to a private copy as a workload; return its id."""
    demand.check()
    known = dict(con.execute("select model_id, max_context from model").fetchall())
    if demand.model_id not in known:
        raise DecideError(f"model {demand.model_id!r} is not in the catalog (known: {', '.join(sorted(known))})")
    limit = known[demand.model_id]
    if limit and demand.input_len + demand.output_len > limit:
        raise DecideError(f"{demand.model_id} takes at most {limit:,} tokens of prompt and output (max_context), "
                          f"and --input-len {demand.input_len:g} + --output-len {demand.output_len:g} is "
                          f"{demand.input_len + demand.output_len:,.0f}")
    if demand.drafts and demand.draft_model not in known:
        raise DecideError(f"--draft-model {demand.draft_model!r} is not in the catalog "
                          f"(known: {', '.join(sorted(known))})")
    unit = "accepted output tokens" if demand.drafts else "output tokens"
    drafting = (f" with speculative decoding ({demand.draft_model}: {demand.draft_tokens} drafted, "
                f"{demand.accepted_per_step:g} accepted per step)" if demand.drafts else "")
    name = (f"your serving job: {demand.model_id} at {rate_text(demand.tokens_per_s)} {unit}/s "
            f"({demand.input_len:g} in / {demand.output_len:g} out){drafting}")
    con.execute(
        """insert into workload by name
           select ? as workload_id, ? as name, 'serving' as kind, ? as model_id, ? as dtype,
                  ? * 3600 as total_tokens, ? as input_len, ? as output_len, ? as scenario, ? as ttft_ms,
                  ? as tpot_ms, ? as token_unit, ? as demand_tokens_per_s, 'job' as purpose,
                  ? as consumer_model_id, ? as spec_draft_len, ? as spec_accept_len, 'gpucalc serve' as source""",
        [YOUR_SERVING, name, demand.model_id, demand.dtype, demand.tokens_per_s, demand.input_len,
         demand.output_len, demand.scenario, demand.ttft_ms, demand.tpot_ms, unit, demand.tokens_per_s,
         demand.draft_model, demand.draft_tokens, demand.accepted_per_step],
    )
    return YOUR_SERVING


def rebuild(con: duckdb.DuckDBPyConnection, run_date: date) -> None:
    rebuild_estimates(con, "decide", run_date)


def choices(
    con: duckdb.DuckDBPyConnection, workload_id: str, pricing: tuple[str, ...], platforms: list[str] | None = None
) -> pl.DataFrame:
    """The job's choices: per basis the best of all platforms (decision), or of each named
    platform (platform_choice), each row on its own basis; the managed API beside them."""
    present = {r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()}
    if not {"decision", "platform_choice"} <= present:
        raise DecideError("this warehouse was built by an older gpucalc: run `gpucalc run --offline` (or a nightly) "
                          "to rebuild it")
    if con.execute("select count(*) from workload where workload_id = ?", [workload_id]).fetchone()[0] == 0:
        raise DecideError(f"no workload {workload_id!r} (gpucalc sql \"select workload_id, name from workload\")")
    if platforms:
        known = {r[0] for r in con.execute("select platform_id from platform").fetchall()}
        unknown = [p for p in platforms if p not in known]
        if unknown:
            raise DecideError(f"unknown platform {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        rows = con.execute(sql_text("warehouse.questions", "decide_named_platforms.sql"),
                           [workload_id, platforms, list(pricing)]).pl()
    else:
        rows = con.execute(
            """select * from decision
               where workload_id = ? and (list_contains(?, pricing) or pricing = 'api'
                                          or choice = 'measured run')
               order by case choice when 'measured run' then 0 when 'rent on-demand' then 1 when 'rent spot' then 2
                                    when 'rent reserved' then 3 when 'buy' then 4 else 5 end, pick, platform_id""",
            [workload_id, list(pricing)],
        ).pl()
    api = con.execute(
        "select * from decision where workload_id = ? and pricing = 'api'", [workload_id]
    ).pl()
    if platforms and api.height:
        rows = pl.concat([rows, api], how="diagonal_relaxed")
    return rows


def refusals(con: duckdb.DuckDBPyConnection, workload_id: str, platforms: list[str] | None = None,
             most: int = 2) -> list[tuple[str, int]]:
    """Why the job's layouts do not fit, the commonest reasons first, with how many layouts each
    refuses: what to say when no GPU fleet is offered."""
    return con.execute(
        """select refusal, count(*) as layouts from topology_estimate
           where workload_id = ? and not fits and refusal is not null
             and (? is null or list_contains(?, platform_id))
           group by refusal order by layouts desc, refusal limit ?""",
        [workload_id, platforms, platforms, most],
    ).fetchall()


def rate_text(tokens_per_s: float) -> str:
    """A demand as people read it: whole tokens with separators, or 3 digits where that is absurd."""
    return f"{tokens_per_s:,.0f}" if tokens_per_s < 1e15 else f"{tokens_per_s:.3g}"


def workload_row(con: duckdb.DuckDBPyConnection, workload_id: str) -> dict:
    return con.execute("select * from workload where workload_id = ?", [workload_id]).pl().to_dicts()[0]
