"""A real PostgreSQL server for the tests, from the Debian packages (`apt-get install -y postgresql`).

Started once per test run (tests/run_services.py) on 127.0.0.1 and a free port, with its
data and socket in a temporary folder, and stopped at the end. initdb refuses to run as root,
so as root the server runs as the `postgres` user the package creates. Durability is off
(fsync=off): the server lives for one test run.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from flows.prefect_api import free_port


class NoPostgres(Exception):
    """No PostgreSQL server can be started here; the message says why."""


@dataclass
class PostgresServer:
    root: Path
    port: int
    bin_dir: Path
    run_as: list[str]
    host: str = "127.0.0.1"
    user: str = "postgres"

    def conninfo(self, database: str) -> str:
        """A libpq connection string, the form DuckLake's `ducklake:postgres:` takes."""
        return f"host={self.host} port={self.port} user={self.user} dbname={database}"

    def create_database(self, name: str) -> str:
        """A fresh database for `name` in this process: the server is shared by every pytest worker,
        and a module's fixture may run on two of them at once (`-n 2` without `--dist loadfile`)."""
        import psycopg

        name = f"{name}_{os.getpid()}"
        with psycopg.connect(self.conninfo("postgres"), autocommit=True) as con:
            con.execute(f'drop database if exists "{name}"')
            con.execute(f'create database "{name}"')
        return self.conninfo(name)

    @classmethod
    def from_details(cls, details: dict) -> PostgresServer:
        return cls(Path(details["root"]), details["port"], Path(details["bin_dir"]), details["run_as"])

    def stop_command(self) -> list[str]:
        stop = [*self.run_as, str(self.bin_dir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "stop"]
        return ["sh", "-c", '"$@"; rm -rf "$0"', str(self.root), *stop]  # stop, then remove its folder


def start_shared(_folder: Path) -> dict:
    """`start()`, described for tests/run_services.py (the server keeps its own folder: the
    `postgres` user must reach it, and the run's folder is private to root)."""
    server = start()
    return {"root": str(server.root), "port": server.port, "bin_dir": str(server.bin_dir), "run_as": server.run_as,
            "stop": server.stop_command()}


def start() -> PostgresServer:
    bin_dir = _bin_dir()
    run_as = _run_as()
    root = Path(tempfile.mkdtemp(prefix="gpucalc-pg-"))
    if run_as:
        shutil.chown(root, "postgres")
    server = PostgresServer(root, free_port(), bin_dir, run_as)
    _run(server, "initdb", "-D", str(root / "data"), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
    options = f"-p {server.port} -k {root} -c listen_addresses={server.host} -c fsync=off -c max_connections=50"
    _run(server, "pg_ctl", "-D", str(root / "data"), "-o", options, "-l", str(root / "server.log"), "-w", "-t", "60",
         "start")
    return server


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise NoPostgres("no PostgreSQL server binaries (apt-get install -y postgresql)")


def _run_as() -> list[str]:
    if os.geteuid() != 0:
        return []
    if not shutil.which("runuser"):
        raise NoPostgres("running as root without runuser: initdb refuses root")
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError as exc:
        raise NoPostgres("running as root and no postgres user to run the server as") from exc
    return ["runuser", "-u", "postgres", "--"]


def _run(server: PostgresServer, program: str, *args: str) -> None:
    result = subprocess.run([*server.run_as, str(server.bin_dir / program), *args], capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        shutil.rmtree(server.root, ignore_errors=True)
        raise NoPostgres(f"{program} failed: {(result.stderr or result.stdout).strip()[:300]}")

