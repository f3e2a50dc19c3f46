"""One function gives the graph backend: the embedded FalkorDB by default, a FalkorDB server when
FALKORDB_URI is set, Neo4j when NEO4J_URI is set.

All are graphiti `GraphDriver`s; everything above this module uses graphiti's drivers and models and
does not care which database it talks to. One deal = one `group_id`, a property on every node and edge. Neo4j
keeps every group in one database. FalkorDB keeps graphs: graphiti gives a group_id passed to `add_episode` a
graph of that name, but its default group `_` lives in `default_db`, and older graphiti versions and some
deployments keep several groups in one graph; discovery (the FalkorDB dialect) records which graph holds each
group (`graphs`), and `driver(group_id)` opens that graph (docs/graph-shapes.md).

Read-only: with `RETRIEVAL_LAB_READ_ONLY=1` (the whole backend) or a deal in `read_only_groups`,
`driver(group_id)` hands out a driver whose every query runs as a read in the database (FalkorDB
`GRAPH.RO_QUERY`, Neo4j read transactions), so the database refuses any write; our own write paths check
`require_writable` first and refuse with one line before anything reaches the database.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import unquote, urlsplit

from falkordb.asyncio import FalkorDB
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.driver.falkordb_driver import FalkorDriver

from pipeline.errors import BackendUnavailable, InvalidInput, ReadOnly
from pipeline.graph.dialects.common import GraphQueries
from pipeline.graph.dialects.registry import queries_for
from pipeline.graph.embedded_falkordb import SOCKET_CONNECT_TIMEOUT_S, EmbeddedFalkorDB
from pipeline.graph.graphiti_compat import ReadOnlyFalkorDriver, ReadOnlyNeo4jDriver, skip_index_creation
from pipeline.settings import Settings
from pipeline.text import clip, one_line


@dataclass
class GraphBackend:
    kind: Literal["falkordb", "neo4j"]  # the dialect: an embedded FalkorDB and a FalkorDB server share one
    location: str  # where it is, never with a password
    falkor: FalkorDB | None = None  # the FalkorDB client (embedded or server); graphs are selected per deal
    neo4j: GraphDriver | None = None
    embedded: EmbeddedFalkorDB | None = None
    read_only: bool = False  # RETRIEVAL_LAB_READ_ONLY: no write reaches any deal
    read_only_groups: set[str] = field(default_factory=set)  # deals attached read-only one by one
    graphs: dict[str, str] = field(default_factory=dict)  # FalkorDB: group_id -> the graph discovery found it in
    _drivers: dict[tuple[str, bool], GraphDriver] = field(default_factory=dict, repr=False)
    cypher: GraphQueries = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.cypher = queries_for(self)  # every statement of ours, in this backend's dialect

    @property
    def label(self) -> str:
        if self.embedded:
            return "embedded FalkorDB"
        return "FalkorDB server" if self.kind == "falkordb" else "Neo4j"

    def describe(self) -> str:
        """One line: which database, where, and whether it is attached read-only."""
        return f"{self.label} ({self.location})" + (", read-only (RETRIEVAL_LAB_READ_ONLY)" if self.read_only else "")

    def read_only_reason(self, group_id: str | None = None) -> str | None:
        """Why writes to this deal (or, with no deal, to the backend) are off; None when they are allowed."""
        if self.read_only:
            return "RETRIEVAL_LAB_READ_ONLY"
        if group_id is not None and group_id in self.read_only_groups:
            return f"the deal's read-only setting; python -m pipeline deals --writable {group_id} lifts it"
        return None

    def is_read_only(self, group_id: str | None = None) -> bool:
        return self.read_only_reason(group_id) is not None

    def require_writable(self, group_id: str | None, action: str = "this change") -> None:
        """Raise ReadOnly (one line) when the deal is attached read-only: before anything is written."""
        reason = self.read_only_reason(group_id)
        if reason is not None:
            what = f"deal {group_id!r}" if group_id and not self.read_only else "this graph"
            raise ReadOnly(
                f"Read-only: {what} is attached read-only ({reason}): {action} was refused; nothing was written."
            )

    def graph_of(self, group_id: str) -> str:
        """The FalkorDB graph holding the group: the one discovery found it in, else the graph of its name (where
        graphiti's `add_episode` writes a group). Neo4j has one database."""
        return self.graphs.get(group_id, group_id)

    def driver(self, group_id: str) -> GraphDriver:
        """The driver for one deal: it reads and writes, or, for a read-only deal, only ever reads. On FalkorDB it
        opens the graph holding the group; every statement of ours still filters by group_id."""
        return self._driver(self.graph_of(group_id), self.is_read_only(group_id))

    def _driver(self, graph: str, read_only: bool) -> GraphDriver:
        key = (graph, read_only)
        if key not in self._drivers:
            if self.neo4j is not None:
                self._drivers[key] = ReadOnlyNeo4jDriver(self.neo4j) if read_only else self.neo4j  # type: ignore[arg-type]
            elif read_only:
                self._drivers[key] = ReadOnlyFalkorDriver(self.falkor, graph)
            else:
                self._drivers[key] = skip_index_creation(FalkorDriver(falkor_db=self.falkor, database=graph))
        return self._drivers[key]

    async def read_graph(self, graph: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """A read of one FalkorDB graph by its name, whatever groups it holds (discovery looks into every graph):
        always sent as a read (`GRAPH.RO_QUERY`)."""
        result = await self._driver(graph, True).execute_query(cypher, **params)
        return [dict(r) for r in result[0]] if result else []

    async def query(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run parameterised Cypher against one deal; user text only ever travels in `params`."""
        result = await self.driver(group_id).execute_query(cypher, **params)
        if not result:
            return []
        records = result[0]
        return [dict(r) for r in records]

    async def graph_names(self) -> list[str]:
        """FalkorDB graphs (each holds one group or several); Neo4j keeps all deals in one database."""
        if self.falkor is None:
            return []
        return list(await self.falkor.list_graphs())

    async def delete_graph(self, group_id: str) -> None:
        """Delete the deal: on FalkorDB its graph when the graph is its own and holds no other group, else (a
        shared graph, Neo4j) only the nodes carrying its group_id, with their relationships."""
        self.require_writable(group_id, "deleting the deal")
        if self.falkor is None:
            await self.cypher.delete_deal(group_id)
            return
        await self.cypher.holds_group(group_id)  # where it is now, whatever this process saw before
        graph = self.graph_of(group_id)
        if graph not in await self.graph_names():
            pass  # nothing to delete; asking a graph that does not exist would create it
        elif graph == group_id and not await self.cypher.holds_other_nodes(graph, group_id):
            await self.falkor.select_graph(graph).delete()
            for read_only in (False, True):
                self._drivers.pop((graph, read_only), None)
        else:
            await self.cypher.delete_deal(group_id)
        self.graphs.pop(group_id, None)

    async def compact(self) -> None:
        """After a bulk write, rewrite the append-only file (RDB preamble) so a restart loads it fast."""
        if self.embedded is not None and not self.read_only:  # a server's persistence is its owner's business
            with contextlib.suppress(Exception):  # a rewrite already running is fine
                await self.falkor.connection.execute_command("BGREWRITEAOF")  # type: ignore[union-attr]

    async def health(self) -> str | None:
        """None when the backend answers within a few seconds, else a one-line reason."""
        return await self._check(slow_is_down=True)

    async def lost(self) -> str | None:
        """None unless the connection is gone (refused, closed, socket missing), else a one-line reason.
        A slow answer means a busy server or a busy event loop, not a dead one: reconnecting then would
        close the connections of every query in flight ("Connection closed by server")."""
        return await self._check(slow_is_down=False)

    async def _check(self, slow_is_down: bool) -> str | None:
        try:
            if self.falkor is not None:
                await asyncio.wait_for(self.falkor.connection.ping(), timeout=2)
            elif self.neo4j is not None:
                await asyncio.wait_for(self.neo4j.client.verify_connectivity(), timeout=5)
        except TimeoutError as exc:
            return f"{self.label} at {self.location}: {_reason(exc)}" if slow_is_down else None
        except Exception as exc:
            return f"{self.label} at {self.location}: {_reason(exc)}"
        return None

    def connection_lost(self, exc: BaseException) -> BackendUnavailable | None:
        """One line naming this backend when `exc` (or what caused it) is its connection breaking mid-way
        (a killed or stopped server, a dropped network); None for anything else."""
        cause: BaseException | None = exc
        while cause is not None:
            if isinstance(cause, _connection_errors()):
                return BackendUnavailable(
                    f"Lost the connection to {self.label} at {self.location} mid-way ({_reason(cause)}); check that "
                    "it is running, then try again."
                )
            cause = cause.__cause__ or cause.__context__
        return None

    async def close(self) -> None:
        self._drivers.clear()
        if self.embedded is not None:
            self.embedded.release()  # this client's lease: the server stays while another client holds one
        if self.neo4j is not None:
            await _close_quietly(self.neo4j)
        if self.falkor is not None:
            with contextlib.suppress(Exception):  # closing a dead connection must not mask the real error
                await self.falkor.connection.aclose()


async def _close_quietly(driver: GraphDriver) -> None:
    with contextlib.suppress(Exception):  # closing a dead connection must not mask the real error
        await driver.close()


def _connection_errors() -> tuple[type[BaseException], ...]:
    """What the drivers raise when a connection breaks: redis's for FalkorDB (the embedded server and a server
    alike), the Neo4j driver's for Neo4j."""
    from neo4j.exceptions import ServiceUnavailable, SessionExpired
    from redis.exceptions import ConnectionError as RedisConnectionError

    return (RedisConnectionError, ServiceUnavailable, SessionExpired)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "no answer (timed out)"
    return clip(one_line(exc) or type(exc).__name__, 240, "...")


async def connect(settings: Settings) -> GraphBackend:
    """Start or reach the configured backend; raise BackendUnavailable with one clear line if not."""
    kind = settings.graph_backend
    if kind == "neo4j":
        backend = await _connect_neo4j(settings)
    elif kind == "falkordb_server":
        backend = await _connect_falkordb_server(settings)
    else:
        backend = await _connect_embedded(settings)
    backend.read_only = settings.read_only
    return backend


async def _connect_embedded(settings: Settings) -> GraphBackend:
    server = EmbeddedFalkorDB(settings.resolved_data_dir)
    await asyncio.to_thread(server.ensure_running)
    try:
        # the client's constructor sends a blocking INFO: a server killed while starting refuses it here
        client = FalkorDB(unix_socket_path=str(server.socket_path))
    except Exception as exc:
        server.release()
        raise BackendUnavailable(f"embedded FalkorDB at {server.uri}: {_reason(exc)}") from None
    # redis-py passes no connect timeout to a unix socket's connections (they keep its 5 s default): the pool does
    client.connection.connection_pool.update_connection_kwargs(socket_connect_timeout=SOCKET_CONNECT_TIMEOUT_S)
    backend = GraphBackend(kind="falkordb", location=server.uri, falkor=client, embedded=server)
    problem = await backend.health()
    if problem:
        await backend.close()  # releases the lease too
        raise BackendUnavailable(problem)
    return backend


@dataclass(frozen=True)
class FalkorAddress:
    """A FalkorDB server's address, parsed from FALKORDB_URI; `str()` never shows the password."""

    host: str
    port: int
    username: str | None
    password: str | None
    tls: bool

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def location(self) -> str:
        scheme = "falkors" if self.tls else "falkor"
        user = f"{self.username}@" if self.username else ""
        return f"{scheme}://{user}{self.host}:{self.port}"


FALKORDB_SCHEMES = {"falkor": False, "redis": False, "falkors": True, "rediss": True}  # scheme -> TLS
FALKORDB_URI_FORM = "falkor://[user:password@]host:port"


def parse_falkordb_uri(uri: str) -> FalkorAddress:
    """`falkor://[user:password@]host:port` (also redis://, and falkors:// / rediss:// for TLS), checked.

    The error never repeats the URI: it may hold a password."""
    try:
        parts = urlsplit(uri.strip())
        port = parts.port
    except ValueError:
        parts, port = None, None
    scheme = parts.scheme.lower() if parts else ""
    if parts is None or scheme not in FALKORDB_SCHEMES:
        problem = f"scheme {scheme + '://' if scheme else 'missing'}" if parts else "unreadable port"
        raise InvalidInput(f"FALKORDB_URI is not a FalkorDB address ({problem}): use {FALKORDB_URI_FORM}.")
    if not parts.hostname:
        raise InvalidInput(f"FALKORDB_URI names no host: use {FALKORDB_URI_FORM}.")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise InvalidInput(f"FALKORDB_URI takes no path or options: use {FALKORDB_URI_FORM}.")
    return FalkorAddress(
        host=parts.hostname,
        port=port or 6379,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        tls=FALKORDB_SCHEMES[scheme],
    )


T = TypeVar("T")


async def _in_thread(build: Callable[[], T], timeout_s: float) -> T:
    """Run a blocking call in a daemon thread, waiting at most `timeout_s`: a silent host neither blocks the
    event loop nor, unlike the default executor, the interpreter's exit."""
    outcome: concurrent.futures.Future[T] = concurrent.futures.Future()

    def work() -> None:
        # once the caller has given up (the future is cancelled), what comes back is dropped
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            try:
                outcome.set_result(build())
            except BaseException as exc:  # handed to the awaiting coroutine
                outcome.set_exception(exc)

    threading.Thread(target=work, name="falkordb-connect", daemon=True).start()
    return await asyncio.wait_for(asyncio.wrap_future(outcome), timeout_s)


async def _connect_falkordb_server(settings: Settings) -> GraphBackend:
    address = parse_falkordb_uri(settings.falkordb_uri.get_secret_value() if settings.falkordb_uri else "")
    timeout = settings.connect_timeout_s

    def build() -> FalkorDB:
        # the client sends a blocking INFO from its constructor: a wrong password fails here
        return FalkorDB(
            host=address.host,
            port=address.port,
            username=address.username,
            password=address.password,
            ssl=address.tls,
            socket_connect_timeout=timeout,
        )

    def unavailable(reason: str) -> BackendUnavailable:
        if address.password:
            reason = reason.replace(address.password, "***")
        return BackendUnavailable(f"FalkorDB at {address}: {reason}")

    try:
        client = await _in_thread(build, timeout)
    except Exception as exc:
        raise unavailable(_reason(exc)) from None
    backend = GraphBackend(kind="falkordb", location=address.location, falkor=client)
    try:
        await asyncio.wait_for(client.connection.ping(), timeout=timeout)
    except Exception as exc:
        await backend.close()
        raise unavailable(_reason(exc)) from None
    return backend


async def _connect_neo4j(settings: Settings) -> GraphBackend:
    from graphiti_core.driver.neo4j_driver import Neo4jDriver

    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
    uri = settings.neo4j_uri or ""
    try:
        root = skip_index_creation(Neo4jDriver(uri, settings.neo4j_user, password, database=settings.neo4j_database))
    except Exception as exc:  # malformed URI and the like
        raise BackendUnavailable(f"Neo4j at {uri}: {_reason(exc)}") from None
    backend = GraphBackend(kind="neo4j", location=uri, neo4j=root)
    try:
        await asyncio.wait_for(root.client.verify_connectivity(), timeout=settings.connect_timeout_s)
    except Exception as exc:
        await backend.close()
        raise BackendUnavailable(f"Neo4j at {uri}: {_reason(exc)}") from None
    return backend
