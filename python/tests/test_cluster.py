"""The recipes of docs/cluster.md ("Shipping the package to a cluster"), each run as the doc
prints it, on a Spark standalone cluster that the test starts: a master and two workers of
one core each on 127.0.0.1, from the scripts the pyspark package ships. Their output must
equal the command line's on the same names. The test waits for each daemon to say it is
up, and stops what it started, by process group; it is skipped only where Java is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import List

import pytest

from conftest import ROOT, cli_path, generated_names, run_cli

pyspark = pytest.importorskip("pyspark", reason="pyspark is installed by .ci/run")
pq = pytest.importorskip("pyarrow.parquet")

#: How long a daemon or a job may take at most before the test gives up on it (a guard:
#: the test goes on as soon as the daemon says it is up).
GUARD_SECONDS = 900


def recipes() -> List[str]:
    """The shell blocks of the doc's section on shipping, as printed (unindented)."""
    text = (ROOT / "docs" / "cluster.md").read_text(encoding="utf-8")
    start = text.index("### Shipping the package to a cluster")
    section = text[start : text.index("\n## ", start)]
    return [textwrap.dedent(block) for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """A daemon started in a process group of its own, its output read as it comes: the
    test waits for the line that says it is up."""

    def __init__(self, command: List[str], env: dict, ready: str) -> None:
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.output: List[str] = []
        self.up = threading.Event()
        self.ready = ready
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace")
            self.output.append(line)
            if self.ready in line:
                self.up.set()
        # Ended: whoever waits learns it from the output.
        self.up.set()

    def wait_up(self) -> None:
        assert self.up.wait(GUARD_SECONDS), "".join(self.output)
        assert self.process.poll() is None, "".join(self.output)

    def stop(self) -> None:
        # The whole group: the daemon and the executors it started. SIGKILL, which no
        # inherited disposition can ignore, when SIGTERM has not ended it.
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.reader.join(GUARD_SECONDS)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if shutil.which("java") is None:
        pytest.skip("Java is missing: Spark's master and workers need it")
    spark_home = Path(pyspark.__file__).resolve().parent
    tmp = tmp_path_factory.mktemp("cluster")
    # The Python of the nodes: a virtual environment of its own, idnscope not in it until
    # a recipe installs it.
    nodes = tmp / "nodes"
    subprocess.run([sys.executable, "-m", "venv", str(nodes)], check=True)
    env = dict(os.environ)
    for key in ("VIRTUAL_ENV", "PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"):
        env.pop(key, None)
    env.update(
        SPARK_HOME=str(spark_home),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_LOCAL_DIRS=str(tmp / "local"),
        SPARK_EXECUTOR_MEMORY="512m",
        SPARK_DRIVER_MEMORY="512m",
        PATH=os.pathsep.join(
            [str(nodes / "bin"), str(spark_home / "bin"), str(cli_path().parent), "/usr/bin", "/bin"]
        ),
    )
    spark_class = str(spark_home / "bin" / "spark-class")
    port = free_port()
    master = Daemon(
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
         "--port", str(port), "--webui-port", str(free_port())],
        env, "I have been elected leader",
    )
    started = [master]
    try:
        master.wait_up()
        url = f"spark://127.0.0.1:{port}"
        for i in range(2):
            worker = Daemon(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                 "--cores", "1", "--memory", "1g", "--webui-port", str(free_port()),
                 "--work-dir", str(tmp / f"work-{i}"), url],
                env, "Successfully registered with master",
            )
            started.append(worker)
        for worker in started[1:]:
            worker.wait_up()
        yield {"master": url, "env": env, "tmp": tmp}
    finally:
        for daemon in reversed(started):
            daemon.stop()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel, built as the doc says (`maturin build --release`)."""
    out = tmp_path_factory.mktemp("wheel")
    maturin = Path(sys.executable).parent / "maturin"
    done = subprocess.run(
        [str(maturin), "build", "--release", "--quiet", "--out", str(out)],
        cwd=ROOT / "python", capture_output=True,
    )
    assert done.returncode == 0, done.stderr.decode()
    (built,) = out.glob("idnscope-*.whl")
    return built


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    # Lines that Parquet strings, Hadoop's line reader and a value keep as they are: UTF-8,
    # and no `\r` (a line end to Hadoop), `\v` or `\f` (to a value).
    lines = [
        line for line in generated_names(4000, seed=13)
        if not any(c in line for c in "\r\x0b\x0c") and line.encode("utf-8", "surrogatepass").decode("utf-8", "replace") == line
    ]
    tmp = tmp_path_factory.mktemp("expected")
    expected = run_cli("decode", [line.encode("utf-8") for line in lines], tmp)
    return lines, expected


def job_folder(cluster, name: str, wheel: Path, lines: List[str]) -> Path:
    """A folder with the examples, the wheel, and the names as `dns.parquet` (column
    `qname`, with `i` for the order) and `names.txt`."""
    import pyarrow as pa

    folder = cluster["tmp"] / name
    folder.mkdir()
    for example in (ROOT / "python" / "examples").glob("*.py"):
        shutil.copy(example, folder)
    shutil.copy(wheel, folder)
    table = pa.table({"i": list(range(len(lines))), "qname": lines})
    pq.write_table(table, folder / "dns.parquet")
    (folder / "names.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return folder


def run_recipe(cluster, folder: Path, recipe: str, extra_env=None) -> str:
    env = dict(cluster["env"], MASTER=cluster["master"], **(extra_env or {}))
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", recipe], cwd=folder, env=env,
        capture_output=True, timeout=GUARD_SECONDS,
    )
    assert done.returncode == 0, f"{recipe}\n{done.stdout.decode()}\n{done.stderr.decode()}"
    return done.stdout.decode()


def assert_decoded_as_the_command_line(folder: Path, names) -> None:
    lines, (written, findings) = names
    table = pq.read_table(folder / "decoded").sort_by("i")
    assert table.column("i").to_pylist() == list(range(len(lines)))
    got = [v.encode("utf-8") for v in table.column("qname_unicode").to_pylist()]
    assert got == written
    assert table.column("qname_findings").to_pylist() == [findings.get(i, []) for i in range(len(lines))]
    assert sum(len(f) for f in findings.values()) > 100


def test_the_doc_has_the_three_recipes():
    blocks = recipes()
    assert len(blocks) == 3, blocks
    assert "--archives env.tar.gz#env" in blocks[1]
    assert "--files idnscope" in blocks[2]


def test_installed_on_every_node(cluster, wheel, names):
    folder = job_folder(cluster, "installed", wheel, names[0])
    run_recipe(cluster, folder, recipes()[0])
    assert_decoded_as_the_command_line(folder, names)


def test_a_packed_environment_shipped_with_the_job(cluster, wheel, names):
    folder = job_folder(cluster, "packed", wheel, names[0])
    run_recipe(cluster, folder, recipes()[1])
    assert_decoded_as_the_command_line(folder, names)
    # PySpark stays out of the archive, whose size the doc gives.
    archive = folder / "env.tar.gz"
    listing = subprocess.run(["tar", "-tzf", str(archive)], capture_output=True, check=True)
    assert b"/pyspark/" not in listing.stdout
    size = archive.stat().st_size / 1e6
    doc = (ROOT / "docs" / "cluster.md").read_text(encoding="utf-8")
    stated = int(re.search(r"The\s+archive is about (\d+) MB", doc).group(1))
    assert 0.7 * stated <= size <= 1.3 * stated, f"{size:.0f} MB, the doc says {stated} MB"


def test_the_command_line_shipped_for_rdd_pipe(cluster, wheel, names):
    folder = job_folder(cluster, "piped", wheel, names[0])
    run_recipe(cluster, folder, recipes()[2])
    parts = sorted((folder / "piped").glob("part-*"))
    assert len(parts) >= 2
    got = b"".join(p.read_bytes() for p in parts).split(b"\n")
    assert got[-1] == b""
    _lines, (written, _findings) = names
    assert got[:-1] == written
