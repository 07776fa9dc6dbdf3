"""Every deployment in prefect.yaml resolves: its entrypoint imports, is a flow, and its
schedule parses. Guards against a refactor that moves a flow and leaves the schedule dangling."""

import importlib.util
from pathlib import Path

import yaml
from prefect import Flow
from prefect.client.schemas.schedules import CronSchedule

ROOT = Path(__file__).resolve().parents[2]


def deployments():
    return yaml.safe_load((ROOT / "prefect.yaml").read_text())["deployments"]


def load_entrypoint(entrypoint: str):
    path, name = entrypoint.split(":")
    spec = importlib.util.spec_from_file_location(Path(path).stem, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_every_deployment_entrypoint_is_a_flow():
    assert deployments(), "prefect.yaml declares no deployments"
    for deployment in deployments():
        assert isinstance(load_entrypoint(deployment["entrypoint"]), Flow), deployment["name"]


def test_nightly_is_scheduled_daily_in_utc_with_one_run_at_a_time():
    nightly = next(d for d in deployments() if d["name"] == "nightly")
    (schedule,) = nightly["schedules"]
    cron = CronSchedule(cron=schedule["cron"], timezone=schedule["timezone"])
    assert cron.timezone == "UTC"
    fields = schedule["cron"].split()
    assert fields[2:] == ["*", "*", "*"], "runs every day"
    assert nightly["concurrency_limit"]["limit"] == 1
    assert nightly["work_pool"]["name"] == "gpucalc-process"
    assert nightly["parameters"]["offline"] is False


def test_deployment_parameters_match_the_flow_signature():
    for deployment in deployments():
        flow = load_entrypoint(deployment["entrypoint"])
        assert set(deployment.get("parameters", {})) <= set(flow.parameters.properties), deployment["name"]


def test_the_docker_deployment_runs_the_same_nightly_in_an_image_built_from_the_repository():
    """Beyond one machine: same flow and parameters, a Docker work pool, state on shared storage."""
    by_name = {d["name"]: d for d in deployments()}
    docker, nightly = by_name["nightly-docker"], by_name["nightly"]
    assert docker["entrypoint"] == nightly["entrypoint"] and docker["parameters"] == nightly["parameters"]
    assert nightly["work_pool"]["name"] == "gpucalc-process"  # one machine stays the default
    pool = docker["work_pool"]
    assert pool["name"] == "gpucalc-docker"
    (build,) = docker["build"]
    step = build["prefect_docker.deployments.steps.build_docker_image"]
    assert (ROOT / step["dockerfile"]).is_file() and pool["job_variables"]["image"] == "{{ build-image.image }}"
    (push,) = docker["push"]
    assert "prefect_docker.deployments.steps.push_docker_image" in push
    (pull,) = docker["pull"]
    workdir = pull["prefect.deployments.steps.set_working_directory"]["directory"]
    assert f"WORKDIR {workdir}" in (ROOT / "Dockerfile").read_text()
    env = pool["job_variables"]["env"]
    assert env["GPUCALC_DATA_DIR"] == "/data" and any(v.endswith(":/data") for v in pool["job_variables"]["volumes"])
    assert {"GPUCALC_WAREHOUSE", "GPUCALC_LAKE_DATA_PATH"} <= set(env)  # every container names the same warehouse
    # one nightly at a time, whichever pool: its schedule ships paused, the process one active
    assert docker["concurrency_limit"]["limit"] == 1
    assert [s["active"] for s in docker["schedules"]] == [False]
    assert [s["active"] for s in nightly["schedules"]] == [True]
    CronSchedule(cron=docker["schedules"][0]["cron"], timezone=docker["schedules"][0]["timezone"])


def test_the_image_installs_the_pinned_duckdb_and_its_extension_wheels():
    text = (ROOT / "pyproject.toml").read_text()
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert '"duckdb==1.5.5"' in text and '"duckdb-extension-ducklake==1.5.5"' in text
    assert "pip install ." in dockerfile and "COPY pyproject.toml" in dockerfile
    for package in ("flows", "sources", "warehouse", "reports"):
        assert f"COPY {package} {package}" in dockerfile


def test_the_tasks_exchange_only_paths_and_small_values_so_workers_can_be_other_machines():
    """A fetch on one worker and the writer on another share nothing but the data directory."""
    import dataclasses
    import json
    import typing
    from datetime import date

    from flows.tasks import FetchOutcome, fetch_source, publish_report, write_warehouse

    plain = {str, date, bool, int, type(None), list[FetchOutcome], str | None, bool | None}
    for task in (fetch_source, write_warehouse, publish_report):
        hints = typing.get_type_hints(task.fn)
        hints.pop("return")
        assert set(hints.values()) <= plain, (task.name, hints)
    outcome = FetchOutcome("vast", "ok", "1 payloads", ["/data/raw/vast/2026-11-29/offers.json"])
    assert FetchOutcome(**json.loads(json.dumps(dataclasses.asdict(outcome)))) == outcome


def test_every_documented_deploy_command_names_a_deployment_of_prefect_yaml():
    """`prefect deploy -n NAME` (Prefect 3.9) matches NAME against the deployments' names in
    prefect.yaml; the `flow/deployment` spelling that `deployment run` takes finds none there
    and deploys nothing, as the README's command once did."""
    import re

    names = {d["name"] for d in deployments()}
    documented = [(path, name) for path in ("README.md", "docs/operating.md", "prefect.yaml", "Dockerfile")
                  for command in re.findall(r"prefect deploy((?: -n \S+)+)", (ROOT / path).read_text())
                  for name in command.split(" -n ")[1:]]
    assert documented
    assert [(path, name) for path, name in documented if name not in names] == []
