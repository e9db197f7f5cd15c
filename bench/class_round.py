"""A class round under load: 60 phones answering 20 items each, p95 answer-to-tally latency.

Run: ``.venv/bin/python bench/class_round.py [--phones 60] [--items 20] [--no-http]``.

1. **The round store** (``labeldp_core.classroom``): ``phones`` threads at once, each with its
   own seat, answer every item; an answer's latency runs from the call to ``answer`` until a
   ``tally`` that includes it has returned (the teacher's read), under the contention of all the
   other threads.
2. **Through the server** (HTTP and its websocket, as a browser): ``streamlit run app.py`` in
   classroom mode (``LABELDP_READ_ONLY=1``) on a free loopback port; a teacher session opens
   the *Class round* page and clicks *Open a round*; ``phones`` browser-less sessions
   (``tests/app/app_sessions.py``) open ``/play?round=CODE`` and tap one answer button per item,
   all at once. An answer's latency runs from sending the tap until the phone's run has
   finished: the tap's callback, which counts the answer in the store, runs first in that run,
   so the teacher's next read of the tally (every 2 s on the teacher's screen) includes it. The
   teacher's session then reads the tally and must show every answer.

Prints p50, p95 and the slowest for each, the machine's CPUs and load.
"""

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "app")]

from app_sessions import TIMEOUT_S, Render, Session, first_visit, served_app  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

from labeldp_core.classroom import Answer, RoundConfig, RoundStore, draw_items  # noqa: E402
from labeldp_core.data import load_dataset  # noqa: E402


def _summary(label: str, seconds: list[float]) -> float:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(
        f"{label:<34} {len(ordered):>5} answers   p50 {statistics.median(ordered) * 1e3:8.2f} ms"
        f"   p95 {p95 * 1e3:8.2f} ms   slowest {ordered[-1] * 1e3:8.2f} ms"
    )
    return p95


def store_latencies(phones: int, items: int) -> list[float]:
    """Answer-to-tally seconds of every answer, ``phones`` threads answering at once."""
    digits = load_dataset("digits")
    config = RoundConfig(1.0, "digits", digits.class_names, items)
    store = RoundStore()
    code = store.create(config, *draw_items(digits, config, seed=0)).code
    seats = [store.join(code) for _ in range(phones)]
    latencies: list[float] = []
    start = threading.Barrier(phones)

    def phone(number: int, seat: str) -> None:
        start.wait()
        mine = []
        for item in range(1, items + 1):
            began = time.perf_counter()
            if store.answer(code, seat, item, (number + item) % 10) is not Answer.COUNTED:
                raise SystemExit("an answer was refused")
            if store.tally(code).items[item - 1].answers < 1:
                raise SystemExit("a counted answer is missing from the tally")
            mine.append(time.perf_counter() - began)
        latencies.extend(mine)

    threads = [threading.Thread(target=phone, args=(n, s)) for n, s in enumerate(seats)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if store.tally(code).answers != phones * items:
        raise SystemExit("the tally does not hold every answer")
    return latencies


def _texts(render: Render) -> list[str]:
    return [markdown.body for markdown in render.of_type("markdown")]


async def _open_round(port: int, items: int) -> tuple[Session, str]:
    teacher = Session(port, "play", f"epochs=1&round_items={items}")
    await teacher.__aenter__()
    opened = await teacher.render()
    button = opened.widget_id("button", "round_open")
    shown = await teacher.render((WidgetState(id=button, trigger_value=True),))
    codes = [m.group(1) for t in _texts(shown) for m in [re.search(r"round=([A-Z0-9]+)", t)] if m]
    if not codes:
        raise SystemExit(f"no round was opened: {shown.exceptions or _texts(shown)[:3]}")
    return teacher, codes[0]


_FINISHED = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].enum_type
_DONE = {"FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"}


class Phone(Session):
    """A phone's session that taps buttons the way a browser does.

    A tap on a button drawn by a fragment reruns that fragment only (the answer buttons are one).
    """

    fragments: dict[str, str]
    page_hash = ""
    watcher = ""

    async def tap(self, button: str = "", *, watch: bool = False) -> Render:
        """Open the page, or tap ``button``, or run the reveal watcher; read the run to its end.

        ``watch`` reruns the watcher as a browser does every few seconds, mid-round too.
        """
        request = BackMsg()
        request.rerun_script.query_string = self._query
        request.rerun_script.page_name = self._page
        request.rerun_script.page_script_hash = self.page_hash
        if button:
            request.rerun_script.widget_states.widgets.append(
                WidgetState(id=button, trigger_value=True)
            )
            request.rerun_script.fragment_id = self.fragments.get(button, "")
        if watch:
            request.rerun_script.fragment_id = self.watcher
            request.rerun_script.is_auto_rerun = True
        started = time.perf_counter()
        await self._socket.send(request.SerializeToString())
        elements, self.fragments = [], {}
        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self._socket.recv(), TIMEOUT_S))
            kind = message.WhichOneof("type")
            if kind == "navigation":  # the page's hash: a rerun the page asks for keeps it
                self.page_hash = message.navigation.page_script_hash
            elif kind == "auto_rerun":  # the reveal watcher, which a browser reruns on a timer
                self.watcher = message.auto_rerun.fragment_id
            elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                element = message.delta.new_element
                elements.append(element)
                if element.WhichOneof("type") == "button":
                    self.fragments[element.button.id] = message.delta.fragment_id
            elif kind == "script_finished":
                status = _FINISHED.values_by_number[message.script_finished].name
                if status in _DONE:
                    return Render(time.perf_counter() - started, status, tuple(elements))
                elements = []  # cut short for a rerun (the last answer's whole page): read on


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _phone(port: int, code: str, number: int, items: int, think: float) -> list[float]:
    """One phone: open the link, tap one answer per item; the seconds of each tap's run.

    Before each tap the student thinks for ``think`` seconds on average (uniform in 0.5x-1.5x,
    seeded per phone); the think time is not part of the latency.
    """
    seconds = []
    rng = random.Random(number)
    async with Phone(port, "play", f"round={code}") as phone:
        render = await phone.tap()
        for item in range(1, items + 1):
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            captions = [t for t in _texts(render) if t.startswith(f"Item {item} of")]
            if not captions or render.exceptions:
                raise SystemExit(f"phone {number} did not see item {item}: {render.exceptions}")
            button = render.widget_id("button", f"answer_{item}_{(number + item) % 10}")
            render = await phone.tap(button)  # the last one reruns the whole page
            seconds.append(render.seconds)
        if not any("All answered" in alert.body for alert in render.of_type("alert")):
            raise SystemExit(
                f"phone {number} is not waiting for the reveal: {render.status}, "
                f"{[e.WhichOneof('type') for e in render.elements]}, {_texts(render)}"
            )
    return seconds


async def _watcher_cpu(server, code: str, runs: int = 200) -> float:
    """Server CPU seconds of one run of a mid-round phone's reveal watcher (every 3 s each)."""
    async with Phone(server.port, "play", f"round={code}") as phone:
        await phone.tap()
        if not phone.watcher:
            raise SystemExit("the phone's page has no reveal watcher")
        cpu = _cpu_seconds(server.process.pid)
        for _ in range(runs):
            await phone.tap(watch=True)
        return (_cpu_seconds(server.process.pid) - cpu) / runs


def http_latencies(phones: int, items: int, think: float) -> list[float]:
    """Tap-to-counted seconds of every answer through the server, ``phones`` sessions at once.

    Prints the server's CPU time for the class's answers, then what one run of a mid-round
    phone's reveal watcher costs (a phone that joins once the class has answered).
    """

    async def the_class(server) -> list[float]:
        teacher, code = await _open_round(server.port, items)
        started, cpu = time.perf_counter(), _cpu_seconds(server.process.pid)
        taps = await asyncio.gather(
            *(_phone(server.port, code, n, items, think) for n in range(phones))
        )
        cpu = _cpu_seconds(server.process.pid) - cpu
        answers = [s for seconds in taps for s in seconds]
        print(
            f"the class played in {time.perf_counter() - started:.1f} s; the server used "
            f"{cpu:.1f} CPU s, {cpu / len(answers) * 1e3:.0f} ms per answer (one core: "
            f"{len(answers) / cpu:.0f} answers/s)"
        )
        tally = " ".join(_texts(await teacher.render()))
        expected = f"{phones} phones, {phones * items} answers"
        if expected not in tally:
            raise SystemExit(f"the teacher's tally does not say {expected!r}")
        print(f"teacher's tally after the class: {expected}")
        watcher = await _watcher_cpu(server, code)
        print(
            f"a mid-round phone's reveal watcher: {watcher * 1e3:.1f} ms of server CPU a run; "
            f"{phones} phones asking every 3 s take {phones / 3 * watcher:.0%} of one core"
        )
        await teacher.__aexit__()
        return answers

    with tempfile.TemporaryDirectory() as scratch:
        env = {"LABELDP_READ_ONLY": "1", "LABELDP_CLASS_URL": "http://class.example"}
        with served_app(Path(scratch), **env) as server:
            first_visit(server.port)
            return asyncio.run(the_class(server))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=60)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean seconds a student thinks before a tap"
    )
    parser.add_argument("--no-http", action="store_true", help="only the store, no server")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (1 min)")
    _summary(f"store, {args.phones} threads", store_latencies(args.phones, args.items))
    if not args.no_http:
        latencies = http_latencies(args.phones, args.items, args.think)
        p95 = _summary(f"server, {args.phones} phones, think {args.think:g} s", latencies)
        print(f"p95 answer-to-tally through the server: {p95:.2f} s (issue 42 asks < 1 s)")
    print(f"load average after: {os.getloadavg()[0]:.1f} (1 min)")


if __name__ == "__main__":
    main()
