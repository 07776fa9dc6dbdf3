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
