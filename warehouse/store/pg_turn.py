"""Writers on different machines take turns through the PostgreSQL catalog itself.

A `flock` is local to one machine, but every writer of a DuckLake with a PostgreSQL catalog
talks to the same PostgreSQL server, so the turn is a session-level advisory lock there:
`pg_try_advisory_lock(key)` on a connection held open for the whole write session. The
server releases it when that connection ends, however it ends (a killed process, a lost
machine once TCP gives up), as the kernel releases a flock.

Who holds the turn is kept beside the lock, in one row of `gpucalc_write_turn` in the
catalog database (DuckLake leaves tables it does not own alone). A holder whose row still
says unfinished when the next writer gets the turn was killed, as with the lock file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from warehouse.store.location import BadWarehouse, Location
from warehouse.store.turns import Holder, wait_for

# Advisory lock ids are one bigint per database; this one is "gpucalc" in ASCII.
LOCK_KEY = int.from_bytes(b"gpucalc", "big")
TURN_TABLE = "gpucalc_write_turn"


@contextmanager
def pg_turn(where: Location, mine: Holder, wait_s: float, on_wait) -> Iterator[Holder | None]:
    """Hold the advisory lock for the session; yields the previous holder if it was killed mid-write."""
    con = _connect(where, mine)
    try:
        wait_for(lambda: _try_lock(con), lambda: _holder(con), wait_s, on_wait)
        con.execute(f"create table if not exists {TURN_TABLE} (lock_key bigint primary key, holder text)")
        previous = _holder(con)
        _record(con, mine)
        try:
            yield previous if previous and not previous.finished else None
        finally:
            _record(con, mine.done())
            con.execute("select pg_advisory_unlock(%s)", [LOCK_KEY])
    finally:
        con.close()  # ends the session: the server drops any lock it still holds


def _connect(where: Location, mine: Holder):
    import psycopg

    try:
        return psycopg.connect(
            where.target, autocommit=True, connect_timeout=10,
            application_name=f"gpucalc {mine.mode} {mine.run_id}"[:63],
        )
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise BadWarehouse(f"could not reach the PostgreSQL catalog of {where.uri}: {first}") from exc


def _try_lock(con) -> bool:
    return bool(con.execute("select pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()[0])


def _holder(con) -> Holder | None:
    exists = con.execute("select to_regclass(%s) is not null", [TURN_TABLE]).fetchone()[0]
    if not exists:
        return None
    row = con.execute(f"select holder from {TURN_TABLE} where lock_key = %s", [LOCK_KEY]).fetchone()
    return Holder.from_json(row[0]) if row else None


def _record(con, holder: Holder) -> None:
    con.execute(
        f"""insert into {TURN_TABLE} (lock_key, holder) values (%s, %s)
            on conflict (lock_key) do update set holder = excluded.holder""",
        [LOCK_KEY, holder.to_json()],
    )
