"""Issue 37: a pooled PostgreSQL connection the server ended is told without a round trip, by
what waits on its socket (app/core/pg_alive.py). The database-free part: the socket test and
the driver's own flags. With PostgreSQL (TEST_DATABASE_URL), tests/api/test_pg_checkout_issue37.py
ends a real backend."""

import socket
from types import SimpleNamespace

from app.core.pg_alive import quiet, readable


class DriverError(Exception):
    pass


class _Pgconn:
    """As psycopg's: its socket, or the driver's error for a connection without one."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd

    @property
    def socket(self) -> int:
        if self.fd is None:
            raise DriverError("the connection is lost")
        return self.fd


def _connection(fd: int | None, closed: bool = False, broken: bool = False):
    return SimpleNamespace(closed=closed, broken=broken, pgconn=_Pgconn(fd))


def test_issue37_a_resting_socket_is_quiet_until_its_peer_writes_or_leaves():
    ours, server = socket.socketpair()
    try:
        assert not readable(ours.fileno())
        assert quiet(_connection(ours.fileno()), DriverError)
        server.send(b"E")  # the server's goodbye (an ErrorResponse) waits on the socket
        assert readable(ours.fileno())
        assert not quiet(_connection(ours.fileno()), DriverError)
    finally:
        ours.close()
        server.close()
    ours, server = socket.socketpair()
    try:
        server.close()  # the end of the stream alone
        assert not quiet(_connection(ours.fileno()), DriverError)
    finally:
        ours.close()


def test_issue37_a_connection_the_driver_knows_is_gone_is_not_quiet():
    ours, server = socket.socketpair()
    try:
        assert not quiet(_connection(ours.fileno(), closed=True), DriverError)
        assert not quiet(_connection(ours.fileno(), broken=True), DriverError)
        assert not quiet(_connection(None), DriverError)
    finally:
        ours.close()
        server.close()
