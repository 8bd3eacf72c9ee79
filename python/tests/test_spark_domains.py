"""idnscope.spark.audit_domains on local[2] against ``idnscope audit --group-by domain`` on
the same records: a Zeek dns.log in JSON made here, read by the command line as a log and
by Spark as a DataFrame (``query``, ``ts`` as a time, ``id.orig_h``)."""

from __future__ import annotations

import json
import random
import subprocess
from datetime import datetime, timezone

import pytest

from conftest import cli_path

pyspark = pytest.importorskip("pyspark", reason="pyspark is installed by .ci/run")

NAMES = [
    "www.xn--pypal-4ve.com",
    "xn--pypal-4ve.com",
    "paypa1.com",
    "login.paypa1.com",
    "secure-paypal.net",
    "wikipedia.org",
    "www.paypal.com",
]


def test_spark_groups_equal_the_command_lines(spark, tmp_path):
    generator = random.Random(5)
    ts = 1_795_280_531.0
    records = []
    for _ in range(4000):
        ts += generator.randrange(1, 4000) / 1000
        records.append({
            "ts": round(ts, 3),
            "uid": f"C{generator.randrange(1 << 30)}",
            "id.orig_h": f"192.0.2.{1 + generator.randrange(4) * generator.randrange(3)}",
            "query": generator.choice(NAMES),
        })
    log = tmp_path / "dns.json"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    protect = tmp_path / "protect.txt"
    protect.write_text("paypal.com\n")
    done = subprocess.run(
        [str(cli_path()), "audit", "--group-by", "domain", "--protect", str(protect),
         "--report-format", "jsonl", "--report", "-", str(log)],
        capture_output=True,
    )
    assert done.returncode == 1, done.stderr.decode()
    cli = [json.loads(line) for line in done.stdout.decode().splitlines()]
    cli = [r for r in cli if r["type"] == "domain"]
    assert len(cli) == 3, cli

    from pyspark.sql import functions as F

    from idnscope import spark as idn

    df = spark.createDataFrame(
        [(r["query"], float(r["ts"]), r["id.orig_h"]) for r in records],
        "query string, ts double, client string",
    ).withColumn("time", F.col("ts").cast("timestamp"))
    rows = idn.audit_domains(
        df.repartition(3), "query", time_col="time", client_col="client",
        protect=["paypal.com"],
    ).collect()

    assert_groups_are_the_command_lines(rows, cli)


def test_spark_groups_of_log_lines_equal_the_command_lines(spark, tmp_path):
    # Raw lines of text, one or two flagged names on a line, the same name twice on some:
    # each line counts once under each key of its names.
    generator = random.Random(8)
    lines = []
    for i in range(3000):
        first, second = generator.choice(NAMES), generator.choice(NAMES)
        shape = i % 3
        if shape == 0:
            lines.append(f"resolved {first} for a client")
        elif shape == 1:
            lines.append(f"resolved {first} ({first}) and then {second}")
        else:
            lines.append(f'{{"query":"{first}","answer":"{second}"}}')
    cli, rows = cli_and_spark_groups_of_lines(spark, tmp_path, lines)
    assert [r["domain"] for r in rows] == [g["domain"] for g in cli]
    for row, group in zip(rows, cli):
        for key in ("occurrences", "findings", "targets", "kinds", "reasons", "names"):
            assert row[key] == group[key], (key, group)
    # Lines with two keys count under both: the occurrences add up to more than the lines
    # with a finding.
    lookalikes = [n for n in NAMES if n not in ("wikipedia.org", "www.paypal.com")]
    flagged = sum(1 for line in lines if any(n in line for n in lookalikes))
    assert sum(r["occurrences"] for r in rows) > flagged


def test_spark_groups_of_log_lines_take_their_times_and_clients(spark, tmp_path):
    # BIND query lines and passive-DNS records: with format="log" and no time or client
    # column, the groups' times, clients and counts are those the command line reads from
    # the lines (a passive-DNS record stands for its count of queries).
    generator = random.Random(11)
    start = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc).timestamp()
    lines = []
    for i in range(3000):
        name = generator.choice(NAMES)
        at = datetime.fromtimestamp(start + i * 1.25 + generator.randrange(1000) / 1000, timezone.utc)
        if i % 4 == 3:
            lines.append(json.dumps({
                "rrname": name, "rrtype": "A", "count": generator.randrange(1, 50),
                "time_first": int(at.timestamp()) - 86400, "time_last": int(at.timestamp()),
            }))
        else:
            client = f"192.0.2.{1 + generator.randrange(3) * generator.randrange(4)}"
            stamp = at.strftime("%d-%b-%Y %H:%M:%S.") + f"{at.microsecond // 1000:03d}"
            lines.append(f"{stamp} queries: info: client @0x1 {client}#5353 ({name}): "
                         f"query: {name} IN A +E(0)K (192.0.2.53)")
    cli, rows = cli_and_spark_groups_of_lines(spark, tmp_path, lines)

    assert_groups_are_the_command_lines(rows, cli)
    # The counts of the passive-DNS records are in the occurrences: more than the lines.
    assert sum(r["occurrences"] for r in rows) > len(lines)


def cli_and_spark_groups_of_lines(spark, tmp_path, lines):
    """The domain groups of ``lines`` with paypal.com protected, as ``idnscope audit
    --format log --group-by domain`` gives them (three, checked) and as
    ``audit_domains(..., format="log")`` gives them on three partitions."""
    log = tmp_path / "lines.log"
    log.write_text("".join(line + "\n" for line in lines))
    protect = tmp_path / "protect.txt"
    protect.write_text("paypal.com\n")
    done = subprocess.run(
        [str(cli_path()), "audit", "--format", "log", "--group-by", "domain", "--protect",
         str(protect), "--report-format", "jsonl", "--report", "-", str(log)],
        capture_output=True,
    )
    assert done.returncode == 1, done.stderr.decode()
    cli = [json.loads(line) for line in done.stdout.decode().splitlines()]
    cli = [r for r in cli if r["type"] == "domain"]
    assert len(cli) == 3, cli

    from idnscope import spark as idn

    df = spark.createDataFrame([(line,) for line in lines], "line string")
    rows = idn.audit_domains(df.repartition(3), "line", protect=["paypal.com"], format="log").collect()
    return cli, rows


def assert_groups_are_the_command_lines(rows, cli):
    """Spark's groups ``rows`` are the command line's ``cli``, key by key, top clients and
    times (to the millisecond) included."""

    def epoch(text: str) -> float:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()

    assert [r["domain"] for r in rows] == [g["domain"] for g in cli]
    for row, group in zip(rows, cli):
        for key in ("occurrences", "findings", "clients", "targets", "kinds", "reasons", "names"):
            assert row[key] == group[key], (key, group)
        tops = [{"client": t["client"], "count": t["count"]} for t in row["top_clients"]]
        assert tops == group["top_clients"], group
        first = row["first_seen"].replace(tzinfo=timezone.utc).timestamp()
        last = row["last_seen"].replace(tzinfo=timezone.utc).timestamp()
        assert abs(first - epoch(group["first_seen"])) < 1e-3, group
        assert abs(last - epoch(group["last_seen"])) < 1e-3, group
