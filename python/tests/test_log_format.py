"""``format="log"`` against ``idnscope --format log`` on the same lines: the sample lines of
every log format in tests/data/logs, a generated query log, and generated names set in
log lines of three shapes (a BIND query, a JSON record with escapes, a CSV row)."""

from __future__ import annotations

import json
import random
import subprocess
from datetime import datetime, timezone
from typing import List

import pyarrow as pa
import pytest

import idnscope
from conftest import ERROR_KINDS, ROOT, cli_path, generated_names, run_cli

MODES = ["decode", "encode", "audit"]
LOGS = ROOT / "tests" / "data" / "logs"
#: What the command line writes beside each log file in tests/data/logs.
DERIVED = (".decoded", ".encoded", ".findings", ".encode-findings", ".md", ".py")


def usable(line: bytes) -> bool:
    """A line that one value can hold: no line break but a final `\\r`."""
    body = line[:-1] if line.endswith(b"\r") else line
    return not any(b in body for b in b"\r\x0b\x0c")


def sample_log_lines() -> List[bytes]:
    lines = []
    for path in sorted(LOGS.iterdir()):
        if path.suffix in DERIVED or path.name.endswith(DERIVED):
            continue
        lines += path.read_bytes().split(b"\n")
    return [line for line in lines if usable(line)]


def generated_log_lines() -> List[bytes]:
    done = subprocess.run(
        [str(cli_path()), "gen", "log", "--size", "2MB", "--seed", "11"],
        capture_output=True,
        check=True,
    )
    return [line for line in done.stdout.split(b"\n")[:-1] if usable(line)]


def names_in_log_lines() -> List[bytes]:
    rng = random.Random(5)
    lines = []
    for i, name in enumerate(generated_names(20_000, seed=9)):
        name = name.strip()
        shape = i % 3
        if shape == 0:
            lines.append(
                f"01-Dec-2026 10:00:{i % 60:02d}.000 queries: info: client @0x1 192.0.2.{i % 250}"
                f"#5353 ({name}): query: {name} IN A +E(0)K (192.0.2.1)"
            )
        elif shape == 1:
            # JSON escapes a non-ASCII character now and then, as encoders may.
            text = json.dumps(name, ensure_ascii=rng.random() < 0.5)
            lines.append(f'{{"ts":"2026-12-01T10:00:00Z","query":{text},"qtype":"A"}}')
        else:
            lines.append(f"2026-12-01T10:00:00Z,198.51.100.{i % 250},{name},A,NOERROR")
    return [line.encode("utf-8", "surrogatepass") for line in lines]


INPUTS = {
    "sample-logs": sample_log_lines,
    "generated-log": generated_log_lines,
    "names-in-lines": names_in_log_lines,
}


@pytest.fixture(scope="module", params=list(INPUTS))
def case(request, tmp_path_factory):
    lines = INPUTS[request.param]()
    tmp = tmp_path_factory.mktemp(request.param)
    expected = {mode: run_cli(mode, lines, tmp, format="log") for mode in MODES}
    return request.param, lines, expected


def test_the_lines_hold_findings_of_every_mode(case):
    # Else the comparisons below would compare empty lists.
    name, lines, expected = case
    for mode in MODES:
        found = sum(len(f) for f in expected[mode][1].values())
        assert found > 0, (name, mode)
    # More than one name with a finding on some line: findings are placed by name.
    names_per_line = [{f["name"] for f in found} for found in expected["audit"][1].values()]
    if name != "generated-log":
        assert any(len(names) > 1 for names in names_per_line), name


def test_batches_give_what_the_command_line_gives(case):
    _name, lines, expected = case
    # An Arrow string holds UTF-8: the other lines are checked one value at a time below.
    text = [i for i, line in enumerate(lines) if _is_utf8(line)]
    strings = pa.array([lines[i].decode("utf-8") for i in text], type=pa.string())
    for mode, run in [
        ("decode", idnscope.decode_batch),
        ("encode", idnscope.encode_batch),
        ("audit", idnscope.audit_batch),
    ]:
        written, findings = expected[mode]
        result = run(strings, format="log").to_pylist()
        for at, i in enumerate(text):
            got = result[at] if mode == "audit" else result[at]["findings"]
            assert got == findings.get(i, []), (mode, lines[i])
            if mode != "audit":
                assert result[at]["value"].encode("utf-8") == written[i], (mode, lines[i])


def test_each_value_gives_what_the_command_line_gives(case):
    _name, lines, expected = case
    picked = set(range(0, len(lines), max(1, len(lines) // 500)))
    picked |= {i for i, line in enumerate(lines) if not _is_utf8(line)}
    for i in sorted(picked):
        line = lines[i]
        found = expected["audit"][1].get(i, [])
        assert idnscope.audit(line, format="log") == found, line
        written = expected["decode"][0][i]
        errors = [f for f in expected["decode"][1].get(i, []) if f["kind"] in ERROR_KINDS]
        if errors:
            with pytest.raises(idnscope.ConversionError) as raised:
                idnscope.decode(line, format="log")
            assert raised.value.finding == errors[0]
        else:
            assert idnscope.decode(line, format="log") == written, line


def test_names_format_finds_no_name_in_a_log_line():
    line = "client @0x1 192.0.2.7#5353 (xn--pypal-4ve.com): query: xn--pypal-4ve.com IN A +"
    assert idnscope.audit(line) != idnscope.audit(line, format="log")
    found = idnscope.audit(line, format="log")
    # Standing twice on the line, the name is reported once, where it first stands.
    assert {f["name"] for f in found} == {"xn--pypal-4ve.com"}
    assert min(f["column"] for f in found) == line.index("xn--") + 1
    unicode = idnscope.decode("xn--pypal-4ve.com")
    assert unicode != "xn--pypal-4ve.com"
    assert idnscope.decode(line, format="log") == line.replace("xn--pypal-4ve.com", unicode)


def test_findings_carry_the_time_and_client_their_line_gives():
    # The time and the client as Python reads them from the shapes of line that
    # names_in_log_lines writes: BIND's (a time without a zone, taken as UTC); the JSON
    # record (no Zeek, Suricata or passive-DNS keys) and the CSV row (no header) are of no
    # format whose time and client are known.
    def expected(line: str):
        if line[0].isdigit() and line[2] == "-":
            when = datetime.strptime(line[:24], "%d-%b-%Y %H:%M:%S.%f")
            client = line.split(" client @0x1 ")[1].split("#")[0]
            return when.replace(tzinfo=timezone.utc), client
        return None, None

    def instant(text):
        if text is None or isinstance(text, datetime):
            return text
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    lines = [line.decode("utf-8", "surrogatepass") for line in names_in_log_lines()]
    checked = 0
    for line in lines[:3000]:
        found = idnscope.audit(line, format="log")
        if not found:
            continue
        when, client = expected(line)
        for finding in found:
            assert instant(finding["timestamp"]) == instant(when), line
            assert finding["client"] == client, line
            assert (finding["last_seen"], finding["count"]) == (None, 1), line
        checked += when is not None
    assert checked > 100
    # In the names format a value says nothing of when or by whom.
    found = idnscope.audit("xn--pypal-4ve.com")
    assert found and all(
        (f["timestamp"], f["last_seen"], f["count"], f["client"]) == (None, None, 1, None)
        for f in found
    )


def test_a_passive_dns_record_gives_its_first_and_last_seen_and_count():
    line = ('{"rrname":"xn--pypal-4ve.com","rrtype":"A","count":42,'
            '"time_first":1795576290,"time_last":1795662690}')
    found = idnscope.audit(line, format="log")
    assert found
    first = datetime.fromtimestamp(1795576290, timezone.utc)
    last = datetime.fromtimestamp(1795662690, timezone.utc)
    for f in found:
        assert datetime.fromisoformat(f["timestamp"].replace("Z", "+00:00")) == first
        assert datetime.fromisoformat(f["last_seen"].replace("Z", "+00:00")) == last
        assert f["count"] == 42
    batch = idnscope.audit_batch(pa.array([line]), format="log").to_pylist()
    assert batch == [found]


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="names or log"):
        idnscope.audit("example.com", format="zone")
    with pytest.raises(ValueError, match="names or log"):
        idnscope.audit_batch(["example.com"], format="csv")


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
