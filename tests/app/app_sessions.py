"""Browser-less sessions against a real ``streamlit run`` server, over its websocket protocol.

A :class:`Session` sends what a browser sends: a rerun request carrying the link's query string
and the page, then the values of the widgets a user moved. It reads the server's answer up to the
end of that script run and returns a :class:`Render`: every element drawn and the time from the
request to "script finished". Used by the load test and by ``bench/app_load.py``.
"""

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect

__all__ = [
    "EPSILON_SPENT",
    "LOAD_EPSILONS",
    "LOAD_PAGE",
    "LOAD_QUERY",
    "Render",
    "Server",
    "Session",
    "browse",
    "browse_concurrently",
    "first_visit",
    "served_app",
    "streamlit_server",
    "warm_load_page",
]

ROOT = Path(__file__).resolve().parents[2]
#: Guards against a hung server only; generous because the machines are shared (not a speed check).
TIMEOUT_S = 300
_FINISHED = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].enum_type


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    """A running ``streamlit run app.py``: its port and its process."""

    port: int
    process: subprocess.Popen


@contextmanager
def served_app(cache_dir: Path, **env: str) -> Iterator[Server]:
    """Run ``streamlit run app.py`` on a free loopback port with ``cache_dir`` and ``env``."""
    port = _free_port()
    env = dict(os.environ, LABELDP_CACHE_DIR=str(cache_dir), OMP_NUM_THREADS="1") | env
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health") as answer:
                    if answer.read() == b"ok":
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the Streamlit server did not come up") from None
                time.sleep(0.2)
        yield Server(port, process)
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def streamlit_server(cache_dir: Path) -> Iterator[int]:
    """Run ``streamlit run app.py`` on a free loopback port with ``cache_dir``; yield the port."""
    with served_app(cache_dir) as server:
        yield server.port


@dataclass(frozen=True)
class Render:
    """One script run as a client saw it."""

    seconds: float
    status: str
    elements: tuple[Element, ...]

    def of_type(self, kind: str) -> list:
        """The elements of one type (``"metric"``, ``"exception"``, ...), as their protos."""
        return [getattr(e, kind) for e in self.elements if e.WhichOneof("type") == kind]

    @property
    def metrics(self) -> dict[str, str]:
        """Metric label -> displayed value."""
        return {m.label: m.body for m in self.of_type("metric")}

    @property
    def exceptions(self) -> list[str]:
        """Messages of exceptions the page showed (none on a healthy page)."""
        return [e.message for e in self.of_type("exception")]

    @property
    def errors(self) -> list[str]:
        """Texts of the ``st.error`` boxes on the page."""
        return [a.body for a in self.of_type("alert") if a.format == Alert.ERROR]

    @property
    def headings(self) -> list[str]:
        """Texts of titles, headers and subheaders."""
        return [h.body for h in self.of_type("heading")]

    def widget_id(self, kind: str, key: str) -> str:
        """The id of the ``kind`` widget keyed ``key`` (a keyed widget's id ends with its key)."""
        return next(w.id for w in self.of_type(kind) if w.id.endswith(f"-{key}"))


class Session:
    """One browser tab's worth of conversation with the server, on one page of the app."""

    def __init__(self, port: int, page: str, query: str) -> None:
        self._url = f"ws://127.0.0.1:{port}/_stcore/stream"
        self._page = page
        self._query = query
        self._socket: ClientConnection | None = None

    async def __aenter__(self) -> "Session":
        self._socket = await connect(self._url, subprotocols=["streamlit"], max_size=None)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._socket.close()

    async def render(self, widgets: tuple[WidgetState, ...] = ()) -> Render:
        """Ask for a run of the page (with ``widgets`` moved) and read it to the end."""
        request = BackMsg()
        request.rerun_script.query_string = self._query
        request.rerun_script.page_name = self._page
        request.rerun_script.widget_states.widgets.extend(widgets)
        started = time.perf_counter()
        await self._socket.send(request.SerializeToString())
        elements = []
        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self._socket.recv(), TIMEOUT_S))
            kind = message.WhichOneof("type")
            if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                elements.append(message.delta.new_element)
            elif kind == "script_finished":
                status = _FINISHED.values_by_number[message.script_finished].name
                return Render(time.perf_counter() - started, status, tuple(elements))

    async def render_until(self, kind: str, containing: str = "") -> Element:
        """Ask for a run of the page; read it until it draws a ``kind`` showing ``containing``."""
        request = BackMsg()
        request.rerun_script.query_string = self._query
        request.rerun_script.page_name = self._page
        await self._socket.send(request.SerializeToString())
        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self._socket.recv(), TIMEOUT_S))
            if message.WhichOneof("type") == "delta":
                element = message.delta.new_element
                if message.delta.WhichOneof("type") == "new_element" and (
                    element.WhichOneof("type") == kind and containing in str(element)
                ):
                    return element

    async def set_number(self, widget_id: str, value: float) -> Render:
        """Type ``value`` into a number input and read the run it triggers."""
        return await self.render((WidgetState(id=widget_id, double_value=value),))


# --- the load scenario: the randomized-response page on cached results -------------------------

#: The page and link of the scenario; logistic regression keeps warming the cache quick.
LOAD_PAGE = "randomized_response"
LOAD_QUERY = "epochs=1&model=logistic"
#: Each session opens the link, then types these epsilons one after another (all cached).
LOAD_EPSILONS = (2.0, 4.0, 0.5, 1.0)
EPSILON_SPENT = "ε spent"


def warm_load_page(cache_dir: Path) -> None:
    """Compute every result the scenario's page shows: its sweep (the demo grid) at LOAD_QUERY.

    The RR page draws the mean curve over the demo seeds, so every seed of the grid is computed.
    """
    from labeldp_core.cache import ResultCache
    from labeldp_core.experiments import make_config, run
    from labeldp_core.experiments.demo import DEMO_EPSILONS, DEMO_SEEDS

    cache = ResultCache(cache_dir)
    try:
        for epsilon in DEMO_EPSILONS:
            for seed in DEMO_SEEDS:
                run(make_config("rr", "digits", epsilon, seed, 1, {"model": "logistic"}), cache)
    finally:
        cache.close()


async def browse(port: int, epsilons: tuple[float, ...]) -> list[Render]:
    """One session: open the scenario's link, then type each of ``epsilons``."""
    async with Session(port, LOAD_PAGE, LOAD_QUERY) as session:
        renders = [await session.render()]
        widget = renders[0].widget_id("number_input", "epsilon")
        for epsilon in epsilons:
            renders.append(await session.set_number(widget, epsilon))
    return renders


def first_visit(port: int) -> Render:
    """The server's first visitor opens the home page: app.py runs, the libraries are imported.

    Until app.py has run once, Streamlit serves a page's link by running that page's file alone.
    """

    async def visit() -> Render:
        async with Session(port, "", "") as session:
            return await session.render()

    return asyncio.run(visit())


def browse_concurrently(
    port: int, sessions: int, epsilons: tuple[float, ...]
) -> list[list[Render]]:
    """``sessions`` sessions browsing at the same time; the renders of each, in order."""

    async def all_of_them() -> list[list[Render]]:
        return await asyncio.gather(*(browse(port, epsilons) for _ in range(sessions)))

    return asyncio.run(all_of_them())
