//! When a DNS log record says its query was made, and which client asked: [`site`] reads one
//! line (no line end; a CR at its end is dropped; invalid UTF-8 is fine) by its format, and
//! tells the format by the line's shape, its first bytes and words:
//!
//! 1. **BIND 9 query log**, `21-Nov-2026 17:02:11.123 queries: info: client @0x7f3c2c01a2d8
//!    192.0.2.10#53124 (name): query: ...`: the time is `%d-%b-%Y %H:%M:%S%.f`; the client
//!    is the word after `client ` (and after the `@0x...` word, which older BIND does not
//!    write: `client 192.0.2.10#53124: query:`) up to its `#`. Through syslog, `Nov 21
//!    17:02:11 ns1 named[1187]: client @0x... 192.0.2.10#53124 (...)`: no time, the same
//!    client.
//! 2. **Unbound**, `[1795280531] unbound[2245:0] info: 192.0.2.10 name. A IN` (the epoch in
//!    brackets, then the program's tag): the time is the epoch; the client is the first word after `info: `, `query: ` or `reply: `
//!    (`log-tag-queryreply`). With `log-time-ascii`, `Nov 21 17:02:11 unbound[2245:0] query:
//!    192.0.2.10 ...`, or through syslog, `Nov 21 17:02:11 host unbound: [2245:0] info: ...`:
//!    no time, the same client.
//! 3. **dnsmasq and Pi-hole**, `Nov 21 17:02:11 dnsmasq[812]: query[A] name from
//!    192.168.1.23`: no time; on `query[` lines the client is the word after the last
//!    ` from `. With `log-queries=extra`, `... dnsmasq[812]: 7 192.168.1.23/53124 forwarded
//!    ...`, every line gives the client, the word after the serial number up to its `/`.
//! 4. **CoreDNS** `log` plugin, `[INFO] 192.0.2.10:53124 - 25701 "A IN name. udp ..."` or
//!    `[INFO] [2001:db8::25]:61001 - ...`: no time; the client is the first word after the
//!    level, without its port and brackets (`[INFO] udp Request: ...` has none).
//! 5. **PowerDNS Recursor**: legacy, `Nov 21 17:02:11 pdns-recursor[1020]: 1 [41/1] question
//!    for 'name|A' from 192.0.2.10:53124`: no time; the client is the word after the last
//!    `' from `, without its port. Structured (logfmt, with or without a syslog prefix),
//!    `msg="Question" ... ts="1795280531.118" ... remote="192.0.2.10:53124"`: the time is the
//!    epoch of `ts`, the client `remote` without its port (`[2001:db8::25]:61001` too).
//! 6. **Zeek `dns.log`**: TSV, tab-separated with an epoch with a fraction (as Zeek writes
//!    it) as its first field, `1795280531.118042 <TAB> uid <TAB> 192.0.2.10 ...`: the time is the first field, the client the third
//!    (`id.orig_h`); header lines (`#fields ...`) give nothing. JSON, `{"ts":1795280531.118042,
//!    "uid":..., "id.orig_h":"192.0.2.10", ...}`: the time is `ts` (an epoch, or an ISO 8601
//!    string), the client `id.orig_h`.
//! 7. **Suricata EVE**, `{"timestamp":"2026-11-21T17:02:11.118042+0000", "event_type":...,
//!    "src_ip":..., "dest_ip":..., "dns":{"type":...}}`: the time is `timestamp`, its offset
//!    honoured; the client is `src_ip` for a `request` (`query` in EVE v1), `dest_ip` for a
//!    `response` (`answer`), and none for other records.
//! 8. **Passive DNS** JSON: COF, `{"rrname":...,"time_first":1761955200,"time_last":1795280531,
//!    "count":1824}`; DNSDB API v2, the same inside `{"obj":{...}}`; SIE `dnsdedupe`, the same
//!    inside `{"message":{...}}`, with `"time_first":"2026-11-21 17:02:11"`: `first` and
//!    `last` are `time_first` and `time_last` (`zone_time_first` and `zone_time_last` when
//!    those are missing), epochs or ISO 8601 strings; `count` is the record's `count` (1 when
//!    it is 0 or missing). There is no client (SIE's `response_ip` is the server's).
//! 9. **dnstap-ldns**, `2026-11-21 17:02:11.118042 CQ 192.0.2.10 UDP 50b "name." IN A`, and
//!    **dnstap-read**, `21-Nov-2026 17:02:11.118 CQ 192.0.2.10:53124 -> 192.0.2.53:53 ...`: the
//!    time is the first two words; for a client query or response (`CQ`, `CR`) the client is
//!    the address after the type, without its port; other messages (`RQ`, `AQ`, ...) have no
//!    client.
//! 10. **Windows DNS debug log**, `11/21/2026 5:02:11 PM 0E70 PACKET  000001E4A8C3B170 UDP Rcv
//!     192.0.2.10 ...`: the time is `%m/%d/%Y %I:%M:%S %p`; on `PACKET` lines the client is
//!     the address after `Rcv` or `Snd` (on a server's log the remote side is the client
//!     both ways).
//! 11. Anything else (plain name lists, CSV, YAML, zone files, free text, other JSON) gives
//!     no time and no client.
//!
//! Times are in UTC. A time written with no zone (BIND, dnstap-read, dnstap-ldns, Windows,
//! SIE) is taken as UTC: BIND, dnstap-read and Windows write the server's local time, whose
//! zone idnscope cannot know. A syslog time (`Nov 21 17:02:11`) writes no year, so it gives
//! no time at all. Where a line's format is recognized but its time is malformed or out of
//! range (a day that does not exist, an epoch past 9999-12-31T23:59:59Z), the time is `None`,
//! never a guess, and the client is still read. A client is given only when it is an IP
//! address (with an optional `%zone`), and then as written.
//!
//! `count` is 1 for every line but a passive-DNS record; for one query `last` is `first`.

use std::net::IpAddr;

use chrono::{DateTime, NaiveDateTime, Utc};
use memchr::{memchr, memmem, memrchr};
use serde_json::{Map, Value};

/// When a log record says its query was made, and which client asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Site {
    /// When it was first seen (for one query: its time), in UTC.
    pub first: Option<DateTime<Utc>>,
    /// When it was last seen (for one query: the same as `first`).
    pub last: Option<DateTime<Utc>>,
    /// How many queries the record stands for: a passive-DNS record's count, else 1.
    pub count: u64,
    /// The address of the client that asked (no port, no brackets), as written.
    pub client: Option<String>,
    /// The format writes a time where none could be read (it does not parse, or no
    /// calendar holds it): the record's time is unknown, not absent.
    pub time_unread: bool,
}

impl Site {
    /// One query, made at `time` by `client`, of a format that writes no time or where
    /// none is written.
    fn one(time: Option<DateTime<Utc>>, client: Option<String>) -> Site {
        Site {
            first: time,
            last: time,
            count: 1,
            client,
            time_unread: false,
        }
    }

    /// One query, made at `time` (`None`: written but not read) by `client`.
    fn timed(time: Option<DateTime<Utc>>, client: Option<String>) -> Site {
        Site {
            time_unread: time.is_none(),
            ..Site::one(time, client)
        }
    }
}

/// The last second an epoch may stand for: 9999-12-31T23:59:59Z, the last RFC 3339 writes.
const MAX_EPOCH: u64 = 253_402_300_799;

/// The months as syslog writes them.
const MONTHS: [&[u8]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// The [`Site`] of one log line (no line end), read by its format, which its shape tells.
pub fn site(line: &[u8]) -> Site {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let blanks = line.iter().take_while(|&&b| is_blank(b)).count();
    let found = match (line.get(blanks..).unwrap_or_default(), line.first()) {
        ([b'{', ..], _) => json(line),
        (_, Some(b'#') | None) => None,
        (_, Some(b'[')) => bracketed(line),
        _ => text(line),
    };
    found.unwrap_or_else(|| Site::one(None, None))
}

/// A line that starts with a word: BIND, dnstap, Windows, syslog, logfmt or Zeek TSV.
fn text(line: &[u8]) -> Option<Site> {
    if line.starts_with(b"msg=") {
        return Some(pdns_structured(line));
    }
    let (first, _) = word(line);
    if is_bind_date(first) {
        bind(line)
    } else if is_iso_date(first) {
        dnstap_ldns(line)
    } else if is_windows_date(first) {
        windows(line)
    } else if MONTHS.contains(&first) {
        syslog(line)
    } else if memchr(b'\t', line).is_some() {
        zeek_tsv(line)
    } else {
        None
    }
}

/// `21-Nov-2026 17:02:11.123 ...`: a BIND query log line, or dnstap-read's when the next word
/// is a dnstap message type.
fn bind(line: &[u8]) -> Option<Site> {
    let (_, rest) = word(line);
    let (clock, rest) = word(rest);
    if !is_clock(clock) {
        return None;
    }
    let time = naive(words_span(line, 2), "%d-%b-%Y %H:%M:%S%.f");
    let (kind, after) = word(rest);
    let client = match dnstap_type(kind) {
        Some(true) => address(strip_last_port(word(after).0)),
        Some(false) => None,
        None => bind_client(rest),
    };
    Some(Site::timed(time, client))
}

/// `2026-11-21 17:02:11.118042 CQ 192.0.2.10 UDP ...`: a dnstap-ldns line.
fn dnstap_ldns(line: &[u8]) -> Option<Site> {
    let (_, rest) = word(line);
    let (clock, rest) = word(rest);
    let (kind, rest) = word(rest);
    if !is_clock(clock) {
        return None;
    }
    let is_client = dnstap_type(kind)?;
    let time = naive(words_span(line, 2), "%Y-%m-%d %H:%M:%S%.f");
    let client = if is_client {
        address(strip_port(word(rest).0))
    } else {
        None
    };
    Some(Site::timed(time, client))
}

/// `11/21/2026 5:02:11 PM 0E70 PACKET ... UDP Rcv 192.0.2.10 ...`: a Windows DNS debug log
/// line.
fn windows(line: &[u8]) -> Option<Site> {
    let (_, rest) = word(line);
    let (clock, rest) = word(rest);
    if !is_clock(clock) {
        return None;
    }
    let (half, rest) = word(rest);
    let time = match half {
        b"AM" | b"PM" => naive(words_span(line, 3), "%m/%d/%Y %I:%M:%S %p"),
        _ => None,
    };
    let mut words = words(rest);
    let client = if words.by_ref().take(2).any(|w| w == b"PACKET") {
        let mut words = words.take(4);
        words
            .find(|&w| w == b"Rcv" || w == b"Snd")
            .and_then(|_| words.next())
            .and_then(address)
    } else {
        None
    };
    Some(Site::timed(time, client))
}

/// `Nov 21 17:02:11 ...`: a syslog line (no year, so no time), or a line of a log that writes
/// its time the same way (Unbound's `log-time-ascii`, dnsmasq's own log file, PowerDNS).
fn syslog(line: &[u8]) -> Option<Site> {
    let (_, rest) = word(line);
    let (day, rest) = word(rest);
    let (clock, rest) = word(rest);
    if !digits(day, 1, 2) || !is_clock(clock) {
        return None;
    }
    Some(tagged(rest, None))
}

/// `[...] ...`: Unbound (`[1795280531] unbound[2245:0] info: ...`) or CoreDNS (`[INFO] ...`).
fn bracketed(line: &[u8]) -> Option<Site> {
    let close = memchr(b']', line)?;
    let inside = line.get(1..close)?;
    let rest = line.get(close + 1..)?;
    if is_epoch(inside) && is_tag(word(rest).0) {
        let mut site = tagged(rest, epoch(inside));
        site.time_unread |= site.first.is_none();
        Some(site)
    } else if !inside.is_empty() && inside.iter().all(u8::is_ascii_uppercase) {
        Some(Site::one(None, address(strip_port(word(rest).0))))
    } else {
        None
    }
}

/// What follows a log line's time: a program's tag (`named[1187]:`, `unbound[2245:0]`, after
/// a host name or not) and its message, read by the message's shape.
fn tagged(rest: &[u8], time: Option<DateTime<Utc>>) -> Site {
    let (program, body) = split_tag(rest);
    if body.starts_with(b"msg=") {
        return pdns_structured(body);
    }
    let client = if program.starts_with(b"unbound") {
        unbound_client(body)
    } else if memmem::find(body, b"question for '").is_some() {
        pdns_legacy_client(body)
    } else {
        dnsmasq_client(body).or_else(|| bind_client(body))
    };
    Site::one(time, client)
}

/// The program named by a line's tag (`named`, `unbound`) and the message after it (from its
/// first word); with no tag in the first two words, no program and the whole text.
fn split_tag(rest: &[u8]) -> (&[u8], &[u8]) {
    let (first, after_first) = word(rest);
    if is_tag(first) {
        return (program(first), trim_blanks(after_first));
    }
    let (second, after_second) = word(after_first);
    if is_tag(second) {
        return (program(second), trim_blanks(after_second));
    }
    (&[], trim_blanks(rest))
}

/// Whether a word is a syslog tag: `prog:`, `prog[pid]:`, or Unbound's `prog[pid:tid]`.
fn is_tag(w: &[u8]) -> bool {
    let bare = w.strip_suffix(b":").unwrap_or(w);
    let name_end = memchr(b'[', bare).unwrap_or(bare.len());
    name_end > 0
        && !bare.contains(&b'=')
        && (w.ends_with(b":") || (bare.ends_with(b"]") && name_end < bare.len()))
}

/// The program of a tag: `named[1187]:` is `named`.
fn program(tag: &[u8]) -> &[u8] {
    let end = memchr(b'[', tag)
        .or_else(|| memchr(b':', tag))
        .unwrap_or(tag.len());
    tag.get(..end).unwrap_or(tag)
}

/// Unbound: the word after `info: `, `query: ` or `reply: ` (after the `[pid:tid]` word that
/// syslog's form has).
fn unbound_client(body: &[u8]) -> Option<String> {
    let (mut level, mut rest) = word(body);
    if level.starts_with(b"[") {
        (level, rest) = word(rest);
    }
    match level {
        b"info:" | b"query:" | b"reply:" => address(word(rest).0),
        _ => None,
    }
}

/// PowerDNS Recursor's legacy `question for 'name|A' from 192.0.2.10:53124`.
fn pdns_legacy_client(body: &[u8]) -> Option<String> {
    let at = memmem::rfind(body, b"' from ")?;
    let after = body.get(at + b"' from ".len()..)?;
    address(strip_port(word(after).0))
}

/// PowerDNS Recursor's structured logging: `ts` and `remote` of a logfmt line.
fn pdns_structured(body: &[u8]) -> Site {
    let ts = logfmt(body, b"ts");
    let client = logfmt(body, b"remote").map(strip_port).and_then(address);
    match ts {
        Some(ts) => Site::timed(epoch(ts), client),
        None => Site::one(None, client),
    }
}

/// dnsmasq: with `log-queries=extra` the word after the serial number up to its `/`, else
/// on a `query[` line the word after the last ` from `.
fn dnsmasq_client(body: &[u8]) -> Option<String> {
    let (serial, rest) = word(body);
    if digits(serial, 1, 20) {
        let (from, _) = word(rest);
        let slash = memchr(b'/', from)?;
        return address(from.get(..slash)?);
    }
    if body.starts_with(b"query[") {
        let at = memmem::rfind(body, b" from ")?;
        return address(word(body.get(at + b" from ".len()..)?).0);
    }
    None
}

/// BIND: the word after `client ` (and after `@0x...`) up to its `#`.
fn bind_client(body: &[u8]) -> Option<String> {
    memmem::find_iter(body, b"client ").find_map(|at| {
        if at > 0 && body.get(at - 1) != Some(&b' ') {
            return None;
        }
        let (from, rest) = word(body.get(at + b"client ".len()..)?);
        let from = if from.starts_with(b"@0x") {
            word(rest).0
        } else {
            from
        };
        let hash = memchr(b'#', from)?;
        address(from.get(..hash)?)
    })
}

/// Zeek `dns.log` TSV: the first field is `ts` (an epoch with a fraction, as Zeek always
/// writes it), the third `id.orig_h`.
fn zeek_tsv(line: &[u8]) -> Option<Site> {
    let mut fields = line.split(|&b| b == b'\t');
    let ts = fields.next()?;
    if !is_epoch(ts) || memchr(b'.', ts).is_none() {
        return None;
    }
    let _uid = fields.next()?;
    let orig = fields.next()?;
    Some(Site::timed(epoch(ts), address(orig)))
}

/// A JSON line: passive DNS, Suricata EVE or Zeek.
fn json(line: &[u8]) -> Option<Site> {
    // Only times and addresses are read, so invalid UTF-8 elsewhere may be replaced.
    let text = String::from_utf8_lossy(line);
    let Ok(Value::Object(record)) = serde_json::from_str::<Value>(&text) else {
        return None;
    };
    passive(&record)
        .or_else(|| suricata(&record))
        .or_else(|| zeek_json(&record))
}

/// A passive-DNS record: COF at the top, DNSDB API v2 in `obj`, SIE dnsdedupe in `message`.
fn passive(record: &Map<String, Value>) -> Option<Site> {
    const KEYS: [&str; 4] = [
        "time_first",
        "time_last",
        "zone_time_first",
        "zone_time_last",
    ];
    let has_times = |m: &Map<String, Value>| KEYS.iter().any(|k| m.contains_key(*k));
    let inner = [record.get("obj"), record.get("message")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .find(|m| has_times(m));
    let rec = inner.or_else(|| has_times(record).then_some(record))?;
    let count = rec
        .get("count")
        .and_then(|c| match c {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        })
        .filter(|&n| n > 0)
        .unwrap_or(1);
    let written = |keys: [&str; 2]| {
        keys.iter()
            .any(|k| rec.get(*k).is_some_and(|v| !v.is_null()))
    };
    let first = seen(rec, "time_first", "zone_time_first");
    let last = seen(rec, "time_last", "zone_time_last");
    Some(Site {
        time_unread: (first.is_none() && written(["time_first", "zone_time_first"]))
            || (last.is_none() && written(["time_last", "zone_time_last"])),
        first,
        last,
        count,
        client: None,
    })
}

/// The time of `key`, or of `zone_key` when `key` is missing.
fn seen(rec: &Map<String, Value>, key: &str, zone_key: &str) -> Option<DateTime<Utc>> {
    match rec.get(key) {
        Some(v) if !v.is_null() => json_time(v),
        _ => rec.get(zone_key).and_then(json_time),
    }
}

/// A Suricata EVE record: `timestamp`, and `src_ip` or `dest_ip` by `dns.type`.
fn suricata(record: &Map<String, Value>) -> Option<Site> {
    if !record.contains_key("event_type") {
        return None;
    }
    let written = record.get("timestamp").is_some_and(|t| !t.is_null());
    let time = record
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(iso);
    let site = |client| Site {
        time_unread: written && time.is_none(),
        ..Site::one(time, client)
    };
    let kind = record
        .get("dns")
        .and_then(|dns| dns.get("type"))
        .and_then(Value::as_str);
    let side = match kind {
        Some("request" | "query") => "src_ip",
        Some("response" | "answer") => "dest_ip",
        _ => return Some(site(None)),
    };
    let client = record
        .get(side)
        .and_then(Value::as_str)
        .and_then(|ip| address(ip.as_bytes()));
    Some(site(client))
}

/// A Zeek `dns.log` JSON record: `ts` and `id.orig_h`.
fn zeek_json(record: &Map<String, Value>) -> Option<Site> {
    let ts = record.get("ts")?;
    if !["uid", "id.orig_h", "id"]
        .iter()
        .any(|k| record.contains_key(*k))
    {
        return None;
    }
    let client = record
        .get("id.orig_h")
        .or_else(|| record.get("id").and_then(|id| id.get("orig_h")))
        .and_then(Value::as_str)
        .and_then(|ip| address(ip.as_bytes()));
    Some(Site::timed(json_time(ts), client))
}

/// A JSON time: an epoch (a number, or a string of one), or an ISO 8601 string.
fn json_time(v: &Value) -> Option<DateTime<Utc>> {
    match v {
        // A float prints as the shortest decimal that reads back as it: the one written,
        // for the microseconds of a time of this era.
        Value::Number(n) => epoch(n.to_string().as_bytes()),
        Value::String(s) if is_epoch(s.as_bytes()) => epoch(s.as_bytes()),
        Value::String(s) => iso(s),
        _ => None,
    }
}

/// An ISO 8601 time, `T` or a space between date and time, with an offset (`Z`, `+0000`,
/// `+00:00`) or none (taken as UTC).
fn iso(s: &str) -> Option<DateTime<Utc>> {
    if !s.as_bytes().get(..10).is_some_and(is_iso_date) {
        return None;
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f%#z", "%Y-%m-%d %H:%M:%S%.f%#z"] {
        if let Ok(t) = DateTime::parse_from_str(s, format) {
            return Some(t.with_timezone(&Utc));
        }
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .into_iter()
        .find_map(|format| NaiveDateTime::parse_from_str(s, format).ok())
        .map(|t| t.and_utc())
}

/// A time with no zone, taken as UTC.
fn naive(text: &[u8], format: &str) -> Option<DateTime<Utc>> {
    let text = std::str::from_utf8(text).ok()?;
    NaiveDateTime::parse_from_str(text, format)
        .ok()
        .map(|t| t.and_utc())
}

/// Whether `text` is written like an epoch: digits, then maybe a dot and digits.
fn is_epoch(text: &[u8]) -> bool {
    let (secs, frac) = match memchr(b'.', text) {
        Some(dot) => (text.get(..dot), text.get(dot + 1..)),
        None => (Some(text), Some(&b"0"[..])),
    };
    secs.zip(frac)
        .is_some_and(|(secs, frac)| digits(secs, 1, usize::MAX) && digits(frac, 1, usize::MAX))
}

/// The time of an epoch (seconds since 1970, maybe with a fraction), if one up to
/// [`MAX_EPOCH`].
fn epoch(text: &[u8]) -> Option<DateTime<Utc>> {
    if !is_epoch(text) {
        return None;
    }
    let dot = memchr(b'.', text).unwrap_or(text.len());
    let (secs, frac) = text.split_at(dot);
    let secs = secs.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })?;
    if secs > MAX_EPOCH {
        return None;
    }
    let frac = frac.get(1..).unwrap_or_default();
    let nanos = (0..9).fold(0u32, |n, i| {
        n * 10 + frac.get(i).map_or(0, |&d| u32::from(d - b'0'))
    });
    DateTime::from_timestamp(i64::try_from(secs).ok()?, nanos)
}

/// `text` as written, if it is an IP address (IPv6 with an optional `%zone`).
fn address(text: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(text).ok()?;
    let ip = match text.split_once('%') {
        Some((ip, zone))
            if !zone.is_empty()
                && zone
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) =>
        {
            ip
        }
        Some(_) => return None,
        None => text,
    };
    ip.parse::<IpAddr>().ok()?;
    Some(text.to_owned())
}

/// An address without its port, as CoreDNS and PowerDNS write one: `192.0.2.10:53124`,
/// `[2001:db8::25]:61001`; an address with more than one colon and no brackets has no port.
fn strip_port(text: &[u8]) -> &[u8] {
    if let Some(inner) = text.strip_prefix(b"[") {
        return memchr(b']', inner)
            .and_then(|end| inner.get(..end))
            .unwrap_or_default();
    }
    match (memchr(b':', text), memrchr(b':', text)) {
        (Some(first), Some(last)) if first == last => text.get(..first).unwrap_or_default(),
        _ => text,
    }
}

/// An address without its port, as dnstap-read writes one: always with a port, after the
/// last `:` (`2001:db8::25:61001`) or `#`.
fn strip_last_port(text: &[u8]) -> &[u8] {
    if text.starts_with(b"[") {
        return strip_port(text);
    }
    memrchr(b'#', text)
        .or_else(|| memrchr(b':', text))
        .and_then(|end| text.get(..end))
        .unwrap_or(text)
}

/// Whether a word is a dnstap message type (`CQ`, `RR`, `AQ`...), and then whether it is a
/// client's query or response.
fn dnstap_type(w: &[u8]) -> Option<bool> {
    match w {
        [who @ (b'A' | b'C' | b'F' | b'R' | b'S' | b'T' | b'U'), b'Q' | b'R'] => Some(*who == b'C'),
        _ => None,
    }
}

/// `21-Nov-2026`.
fn is_bind_date(w: &[u8]) -> bool {
    three(w, b'-').is_some_and(|(d, m, y)| {
        digits(d, 1, 2) && m.len() == 3 && m.iter().all(u8::is_ascii_alphabetic) && digits(y, 4, 4)
    })
}

/// `2026-11-21`.
fn is_iso_date(w: &[u8]) -> bool {
    three(w, b'-').is_some_and(|(y, m, d)| digits(y, 4, 4) && digits(m, 2, 2) && digits(d, 2, 2))
}

/// `11/21/2026`.
fn is_windows_date(w: &[u8]) -> bool {
    three(w, b'/').is_some_and(|(m, d, y)| digits(m, 1, 2) && digits(d, 1, 2) && digits(y, 4, 4))
}

/// `17:02:11`, `5:02:11` or `17:02:11.123`.
fn is_clock(w: &[u8]) -> bool {
    let (hms, frac) = match memchr(b'.', w) {
        Some(dot) => (w.get(..dot), w.get(dot + 1..)),
        None => (Some(w), None),
    };
    hms.and_then(|hms| three(hms, b':'))
        .is_some_and(|(h, m, s)| digits(h, 1, 2) && digits(m, 2, 2) && digits(s, 2, 2))
        && frac.is_none_or(|frac| digits(frac, 1, usize::MAX))
}

/// The three parts of `w` split by `sep`, if it has exactly three.
fn three(w: &[u8], sep: u8) -> Option<(&[u8], &[u8], &[u8])> {
    let mut parts = w.split(|&b| b == sep);
    let found = (parts.next()?, parts.next()?, parts.next()?);
    parts.next().is_none().then_some(found)
}

/// Whether `w` is from `min` to `max` ASCII digits.
fn digits(w: &[u8], min: usize, max: usize) -> bool {
    (min..=max).contains(&w.len()) && w.iter().all(u8::is_ascii_digit)
}

/// The value of `key` in a logfmt line (`key=value` or `key="value"`, escapes kept).
fn logfmt<'a>(mut s: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    loop {
        let start = s.iter().position(|&b| b != b' ')?;
        s = s.get(start..)?;
        let key_end = s
            .iter()
            .position(|&b| b == b'=' || b == b' ')
            .unwrap_or(s.len());
        let (k, rest) = s.split_at(key_end);
        let Some(rest) = rest.strip_prefix(b"=") else {
            s = rest;
            continue;
        };
        let (value, after) = match rest.strip_prefix(b"\"") {
            Some(quoted) => {
                let mut at = 0;
                loop {
                    match quoted.get(at) {
                        None => break (quoted, &[][..]),
                        Some(b'\\') => at += 2,
                        Some(b'"') => {
                            break (
                                quoted.get(..at).unwrap_or_default(),
                                quoted.get(at + 1..).unwrap_or_default(),
                            )
                        }
                        Some(_) => at += 1,
                    }
                }
            }
            None => rest.split_at(memchr(b' ', rest).unwrap_or(rest.len())),
        };
        if k == key {
            return Some(value);
        }
        s = after;
    }
}

/// Whether a byte separates words.
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `s` from its first word.
fn trim_blanks(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_blank(b)).unwrap_or(s.len());
    s.get(start..).unwrap_or_default()
}

/// The first word of `s` (after blanks), and what follows it.
fn word(s: &[u8]) -> (&[u8], &[u8]) {
    let s = trim_blanks(s);
    s.split_at(s.iter().position(|&b| is_blank(b)).unwrap_or(s.len()))
}

/// The words of `s`.
fn words(s: &[u8]) -> impl Iterator<Item = &[u8]> {
    s.split(|&b| is_blank(b)).filter(|w| !w.is_empty())
}

/// The first `n` words of `s` (after blanks), with the blanks between them.
fn words_span(s: &[u8], n: usize) -> &[u8] {
    let s = trim_blanks(s);
    let rest = (0..n).fold(s, |rest, _| word(rest).1);
    s.get(..s.len() - rest.len()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of a sample log in tests/data/logs (LF-terminated; CRs kept).
    macro_rules! sample {
        ($name:literal) => {
            std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../tests/data/logs/",
                $name
            ))
            .expect(concat!("sample ", $name))
        };
    }

    /// Line `n` (1-based) of `data`.
    fn line(data: &[u8], n: usize) -> &[u8] {
        data.split(|&b| b == b'\n')
            .nth(n - 1)
            .expect("the sample has that line")
    }

    /// The lines of `data` (without the empty one after the last LF).
    fn lines(data: &[u8]) -> Vec<&[u8]> {
        let data = data.strip_suffix(b"\n").unwrap_or(data);
        data.split(|&b| b == b'\n').collect()
    }

    /// A time written in RFC 3339.
    fn at(rfc3339: &str) -> Option<DateTime<Utc>> {
        Some(
            DateTime::parse_from_rfc3339(rfc3339)
                .expect("a test time")
                .with_timezone(&Utc),
        )
    }

    /// One query at `time` (RFC 3339, or none) from `client` (or none).
    fn one(time: Option<&str>, client: Option<&str>) -> Site {
        let time = time.and_then(at);
        Site {
            first: time,
            last: time,
            count: 1,
            client: client.map(str::to_owned),
            time_unread: false,
        }
    }

    /// One query from `client` (or none) whose time is written and cannot be read.
    fn unread(client: Option<&str>) -> Site {
        Site {
            time_unread: true,
            ..one(None, client)
        }
    }

    /// A passive-DNS record.
    fn seen(first: &str, last: &str, count: u64) -> Site {
        Site {
            first: at(first),
            last: at(last),
            count,
            client: None,
            time_unread: false,
        }
    }

    /// What a line of no known format gives.
    fn nothing() -> Site {
        one(None, None)
    }

    #[test]
    fn bind_query_log() {
        let data = sample!("bind9-querylog.log");
        assert_eq!(
            site(line(&data, 1)),
            one(Some("2026-11-21T17:02:11.123Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 3)),
            one(Some("2026-11-21T17:02:11.402Z"), Some("198.51.100.7"))
        );
        assert_eq!(
            site(line(&data, 5)),
            one(Some("2026-11-21T17:02:11.618Z"), Some("2001:db8::25"))
        );
        assert_eq!(
            site(line(&data, 9)),
            one(Some("2026-11-21T17:02:12.004Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"21-Nov-2026 17:02:11.123 client 192.0.2.10#53124: query: xn--bcher-kva.example IN A + (192.0.2.53)"),
            one(Some("2026-11-21T17:02:11.123Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"21-Nov-2026 17:02:11.123 general: info: zone example/IN: loaded serial 1"),
            one(Some("2026-11-21T17:02:11.123Z"), None)
        );
    }

    #[test]
    fn bind_query_log_through_syslog() {
        let data = sample!("bind9-querylog.syslog");
        assert_eq!(site(line(&data, 1)), one(None, Some("192.0.2.10")));
        assert_eq!(site(line(&data, 4)), one(None, Some("2001:db8::25")));
        assert_eq!(
            site(
                b"Nov  1 17:02:11 ns1 named[1187]: client 192.0.2.10#53124: query: example IN A +"
            ),
            one(None, Some("192.0.2.10"))
        );
    }

    #[test]
    fn unbound_epoch() {
        let data = sample!("unbound-log-queries-replies.log");
        assert_eq!(
            site(line(&data, 1)),
            one(Some("2026-11-21T17:02:11Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 2)),
            one(Some("2026-11-21T17:02:11Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 7)),
            one(Some("2026-11-21T17:02:12Z"), Some("2001:db8::25"))
        );
        assert_eq!(
            site(line(&data, 12)),
            one(Some("2026-11-21T17:02:13Z"), Some("192.0.2.13"))
        );
        assert_eq!(
            site(b"[1795280531] unbound[2245:0] info: resolving xn--bcher-kva.example. A IN"),
            one(Some("2026-11-21T17:02:11Z"), None)
        );
    }

    #[test]
    fn unbound_ascii_time_and_syslog() {
        let data = sample!("unbound-log-tag-queryreply-ascii-time.log");
        assert_eq!(site(line(&data, 1)), one(None, Some("192.0.2.10")));
        assert_eq!(site(line(&data, 2)), one(None, Some("192.0.2.10")));
        assert_eq!(site(line(&data, 3)), one(None, Some("198.51.100.7")));
        assert_eq!(
            site(b"Nov 21 17:02:11 ns1 unbound: [2245:0] info: 192.0.2.10 example. A IN"),
            one(None, Some("192.0.2.10"))
        );
    }

    #[test]
    fn dnsmasq_and_pihole() {
        let data = sample!("dnsmasq-pihole.log");
        assert_eq!(site(line(&data, 1)), one(None, Some("192.168.1.23")));
        assert_eq!(site(line(&data, 2)), nothing());
        assert_eq!(site(line(&data, 3)), nothing());
        assert_eq!(site(line(&data, 6)), one(None, Some("192.168.1.41")));
        assert_eq!(site(line(&data, 14)), one(None, Some("192.168.1.77")));
        assert_eq!(site(line(&data, 16)), nothing());
        let data = sample!("dnsmasq-log-queries-extra.log");
        assert_eq!(site(line(&data, 1)), one(None, Some("192.168.1.23")));
        assert_eq!(site(line(&data, 2)), one(None, Some("192.168.1.23")));
        assert_eq!(site(line(&data, 3)), one(None, Some("192.168.1.23")));
        assert_eq!(site(line(&data, 4)), one(None, Some("192.168.1.41")));
    }

    #[test]
    fn coredns() {
        let data = sample!("coredns-log.log");
        assert_eq!(site(line(&data, 1)), one(None, Some("192.0.2.10")));
        assert_eq!(site(line(&data, 3)), one(None, Some("2001:db8::25")));
        assert_eq!(site(line(&data, 7)), one(None, Some("10.244.0.7")));
        let data = sample!("coredns-log-custom-combined.log");
        assert_eq!(site(line(&data, 1)), one(None, Some("192.0.2.10")));
        assert_eq!(site(line(&data, 2)), nothing());
    }

    #[test]
    fn powerdns_recursor_legacy() {
        let data = sample!("powerdns-recursor-legacy.log");
        assert_eq!(site(line(&data, 1)), one(None, Some("192.0.2.10")));
        assert_eq!(site(line(&data, 2)), nothing());
        assert_eq!(site(line(&data, 3)), one(None, Some("198.51.100.7")));
        assert_eq!(site(line(&data, 4)), one(None, Some("192.0.2.12")));
        assert_eq!(site(line(&data, 5)), one(None, Some("2001:db8::25")));
    }

    #[test]
    fn powerdns_recursor_structured() {
        let data = sample!("powerdns-recursor-structured.log");
        assert_eq!(
            site(line(&data, 1)),
            one(Some("2026-11-21T17:02:11.118Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 2)),
            one(Some("2026-11-21T17:02:11.131Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 5)),
            one(Some("2026-11-21T17:02:12.618Z"), Some("2001:db8::25"))
        );
        assert_eq!(
            site(br#"msg="Question" qname="a ts=\"1\" b." ts="1795280531.118" remote="192.0.2.10:53124""#),
            one(Some("2026-11-21T17:02:11.118Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(br#"Nov 21 17:02:11 ns1 pdns-recursor[1020]: msg="Question" ts="1795280531.118" remote="[2001:db8::25]:61001""#),
            one(Some("2026-11-21T17:02:11.118Z"), Some("2001:db8::25"))
        );
    }

    #[test]
    fn zeek_tsv_log() {
        let data = sample!("zeek-dns.log");
        let all = lines(&data);
        for header in all.iter().filter(|l| l.starts_with(b"#")) {
            assert_eq!(site(header), nothing());
        }
        assert_eq!(
            site(line(&data, 9)),
            one(Some("2026-11-21T17:02:11.118042Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 12)),
            one(Some("2026-11-21T17:02:12.618777Z"), Some("2001:db8::25"))
        );
    }

    #[test]
    fn zeek_json_log() {
        let data = sample!("zeek-dns.json");
        assert_eq!(
            site(line(&data, 1)),
            one(Some("2026-11-21T17:02:11.118042Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 4)),
            one(Some("2026-11-21T17:02:12.618777Z"), Some("2001:db8::25"))
        );
        assert_eq!(
            site(line(&data, 5)),
            one(Some("2026-11-21T17:02:12.7023Z"), Some("192.0.2.11"))
        );
        assert_eq!(
            site(line(&data, 6)),
            one(Some("2026-11-21T17:02:13.001001Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(br#"  {"ts":1795280531,"uid":"C1","id":{"orig_h":"192.0.2.10","orig_p":1}}"#),
            one(Some("2026-11-21T17:02:11Z"), Some("192.0.2.10"))
        );
    }

    #[test]
    fn suricata_eve() {
        let data = sample!("suricata-eve-dns.json");
        assert_eq!(
            site(line(&data, 1)),
            one(Some("2026-11-21T17:02:11.118042Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 2)),
            one(Some("2026-11-21T17:02:11.130981Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 5)),
            one(
                Some("2026-11-21T17:02:12.618777Z"),
                Some("2001:0db8:0000:0000:0000:0000:0000:0025")
            )
        );
        assert_eq!(
            site(line(&data, 6)),
            one(Some("2026-11-21T17:02:12.7023Z"), Some("192.0.2.11"))
        );
        assert_eq!(
            site(line(&data, 7)),
            one(Some("2021-06-01T10:00:00Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 8)),
            one(Some("2021-06-01T10:00:00.01Z"), Some("192.0.2.10"))
        );
        // The offset is honoured.
        assert_eq!(
            site(br#"{"timestamp":"2026-11-21T18:02:11.118042+0100","event_type":"dns","src_ip":"192.0.2.10","dest_ip":"192.0.2.53","dns":{"type":"request"}}"#),
            one(Some("2026-11-21T17:02:11.118042Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(br#"{"timestamp":"2026-11-21T17:02:11.118042+0000","event_type":"flow","src_ip":"192.0.2.10"}"#),
            one(Some("2026-11-21T17:02:11.118042Z"), None)
        );
    }

    #[test]
    fn passive_dns() {
        let data = sample!("pdns-cof.jsonl");
        assert_eq!(
            site(line(&data, 1)),
            seen("2025-11-01T00:00:00Z", "2026-11-21T17:02:11Z", 1824)
        );
        assert_eq!(
            site(line(&data, 6)),
            seen("2025-11-19T00:00:00Z", "2026-11-21T00:00:00Z", 77)
        );
        let data = sample!("pdns-dnsdb-apiv2.jsonl");
        assert_eq!(site(line(&data, 1)), nothing());
        assert_eq!(
            site(line(&data, 2)),
            seen("2025-11-01T00:00:00Z", "2026-11-21T17:02:11Z", 1824)
        );
        assert_eq!(
            site(line(&data, 3)),
            seen("2025-11-19T00:00:00Z", "2026-11-21T00:00:00Z", 77)
        );
        assert_eq!(site(line(&data, 10)), nothing());
        let data = sample!("pdns-sie-dnsdedupe.jsonl");
        assert_eq!(
            site(line(&data, 1)),
            seen("2026-11-21T17:02:11Z", "2026-11-21T17:02:11Z", 1)
        );
        assert_eq!(
            site(line(&data, 2)),
            seen("2026-11-09T08:00:00Z", "2026-11-21T17:02:11Z", 12)
        );
        // A count of 0, or none, is 1.
        assert_eq!(
            site(
                br#"{"rrname":"example","time_first":1795280531,"time_last":1795280531,"count":0}"#
            ),
            seen("2026-11-21T17:02:11Z", "2026-11-21T17:02:11Z", 1)
        );
        assert_eq!(
            site(br#"{"rrname":"example","time_first":"2026-11-21T17:02:11Z","time_last":"2026-11-21T17:02:12Z"}"#),
            seen("2026-11-21T17:02:11Z", "2026-11-21T17:02:12Z", 1)
        );
    }

    #[test]
    fn dnstap_ldns_text() {
        let data = sample!("dnstap-ldns-q.txt");
        assert_eq!(
            site(line(&data, 1)),
            one(Some("2026-11-21T17:02:11.118042Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 2)),
            one(Some("2026-11-21T17:02:11.120210Z"), None)
        );
        assert_eq!(
            site(line(&data, 4)),
            one(Some("2026-11-21T17:02:11.130981Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 7)),
            one(Some("2026-11-21T17:02:12.618777Z"), Some("2001:db8::25"))
        );
        assert_eq!(
            site(line(&data, 9)),
            one(Some("2026-11-21T17:02:12.702400Z"), Some("192.0.2.11"))
        );
    }

    #[test]
    fn dnstap_read_text() {
        let data = sample!("dnstap-read-default.txt");
        assert_eq!(
            site(line(&data, 1)),
            one(Some("2026-11-21T17:02:11.118Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 2)),
            one(Some("2026-11-21T17:02:11.120Z"), None)
        );
        assert_eq!(
            site(line(&data, 4)),
            one(Some("2026-11-21T17:02:11.131Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 7)),
            one(Some("2026-11-21T17:02:12.618Z"), None)
        );
        assert_eq!(
            site(b"21-Nov-2026 17:02:12.618 CQ 2001:db8::25:61001 -> 2001:db8::53:53 UDP 50b example/IN/MX"),
            one(Some("2026-11-21T17:02:12.618Z"), Some("2001:db8::25"))
        );
    }

    #[test]
    fn windows_debug_log() {
        let data = sample!("windows-dns-debug.log");
        for header in &lines(&data)[..30] {
            assert_eq!(site(header), nothing());
        }
        assert_eq!(
            site(line(&data, 31)),
            one(Some("2026-11-21T17:02:11Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 32)),
            one(Some("2026-11-21T17:02:11Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(line(&data, 37)),
            one(Some("2026-11-21T17:02:12Z"), Some("2001:db8::25"))
        );
        assert_eq!(
            site(line(&data, 40)),
            one(Some("2026-11-21T17:02:13Z"), None)
        );
        assert_eq!(
            site(b"11/21/2026 12:02:11 AM 0E70 PACKET  000001E4A8C3B170 UDP Rcv 192.0.2.10      6465   Q [0001   D   NOERROR] A      (7)example(0)"),
            one(Some("2026-11-21T00:02:11Z"), Some("192.0.2.10"))
        );
    }

    #[test]
    fn other_formats_give_nothing() {
        let samples = [
            sample!("pdns.csv"),
            sample!("plain-names.txt"),
            sample!("plain-names-crlf.txt"),
            sample!("plain-names-nul.bin"),
            sample!("dnstap-ldns-y.yaml"),
            sample!("dnstap-read-y.yaml"),
            sample!("zone-example.zone"),
        ];
        for data in &samples {
            for l in lines(data) {
                assert_eq!(site(l), nothing(), "{:?}", String::from_utf8_lossy(l));
            }
        }
        assert_eq!(site(b""), nothing());
        assert_eq!(site(b"[1, 2, 3]"), nothing());
        assert_eq!(site(b"[1795280531]"), nothing());
        assert_eq!(site(b"[1795280531] 192.0.2.10 info: 192.0.2.10"), nothing());
        assert_eq!(site(b"1\texample.com\t192.0.2.10"), nothing());
        assert_eq!(site(br#"{"level":"info","ts":1795280531}"#), nothing());
        assert_eq!(site(b"{not json"), nothing());
        assert_eq!(site(b"Nov is a month"), nothing());
    }

    #[test]
    fn malformed_times_give_none_and_keep_the_client() {
        assert_eq!(
            site(b"32-Nov-2026 17:02:11.123 queries: info: client @0x7f3c2c01a2d8 192.0.2.10#53124 (xn--bcher-kva.example): query: xn--bcher-kva.example IN A +E(0)K (192.0.2.53)"),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"21-Nov-2026 25:02:11.123 queries: info: client @0x7f3c2c01a2d8 192.0.2.10#53124 (a.example): query: a.example IN A +E(0)K (192.0.2.53)"),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"[99999999999999999999] unbound[2245:0] info: 192.0.2.10 xn--bcher-kva.example. A IN"),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(
                b"99999999999999999999.118042\tCHhAvVGS1DHFjwGM9\t192.0.2.10\t53124\t192.0.2.53\t53\tudp"
            ),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(br#"{"ts":99999999999999999999,"uid":"C1","id.orig_h":"192.0.2.10"}"#),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(br#"Nov 21 17:02:11 msg="Question" ts="99999999999999999999" remote="192.0.2.10:53124""#),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"2026-11-31 17:02:11.118042 CQ 192.0.2.10 UDP 50b \"example.\" IN A"),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"13/21/2026 5:02:11 PM 0E70 PACKET  000001E4A8C3B170 UDP Rcv 192.0.2.10      6465   Q [0001   D   NOERROR] A      (7)example(0)"),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(br#"{"timestamp":"2026-02-30T17:02:11.118042+0000","event_type":"dns","src_ip":"192.0.2.10","dns":{"type":"request"}}"#),
            unread(Some("192.0.2.10"))
        );
        assert_eq!(
            site(br#"{"rrname":"example","time_first":-5,"time_last":1e30,"count":3}"#),
            Site {
                first: None,
                last: None,
                count: 3,
                client: None,
                time_unread: true,
            }
        );
    }

    #[test]
    fn epochs_stop_at_the_last_second_of_9999() {
        let unbound = |epoch: &str| {
            site(format!("[{epoch}] unbound[2245:0] info: 192.0.2.10 example. A IN").as_bytes())
        };
        assert_eq!(
            unbound("253402300799"),
            one(Some("9999-12-31T23:59:59Z"), Some("192.0.2.10"))
        );
        assert_eq!(unbound("253402300800"), unread(Some("192.0.2.10")));
        assert_eq!(
            unbound("0"),
            one(Some("1970-01-01T00:00:00Z"), Some("192.0.2.10"))
        );
    }

    #[test]
    fn yearless_syslog_gives_no_time() {
        for data in [
            sample!("bind9-querylog.syslog"),
            sample!("dnsmasq-pihole.log"),
            sample!("dnsmasq-log-queries-extra.log"),
            sample!("powerdns-recursor-legacy.log"),
            sample!("unbound-log-tag-queryreply-ascii-time.log"),
        ] {
            for l in lines(&data) {
                let found = site(l);
                assert_eq!((found.first, found.last, found.count), (None, None, 1));
                // No time is written there, so none is missed.
                assert!(!found.time_unread, "{:?}", String::from_utf8_lossy(l));
            }
        }
    }

    #[test]
    fn crs_invalid_utf8_and_non_addresses() {
        let data = sample!("bind9-querylog.log");
        let mut with_cr = line(&data, 1).to_vec();
        with_cr.push(b'\r');
        assert_eq!(site(&with_cr), site(line(&data, 1)));
        assert_eq!(
            site(b"21-Nov-2026 17:02:11.123 queries: info: client @0x7f3c2c01a2d8 192.0.2.10#53124 (b\xff\xfe.example): query: b\xff\xfe.example IN A +"),
            one(Some("2026-11-21T17:02:11.123Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"{\"ts\":1795280531,\"uid\":\"C1\",\"id.orig_h\":\"192.0.2.10\",\"query\":\"b\xffcher.example\"}"),
            one(Some("2026-11-21T17:02:11Z"), Some("192.0.2.10"))
        );
        assert_eq!(
            site(b"1795280531.1\tC1\tfe80::1%eth0\t53"),
            one(Some("2026-11-21T17:02:11.1Z"), Some("fe80::1%eth0"))
        );
        assert_eq!(
            site(b"1795280531.1\tC1\tfe80::1%eth0:53\t53"),
            one(Some("2026-11-21T17:02:11.1Z"), None)
        );
        assert_eq!(
            site(b"[INFO] [fe80::1%eth0]:53 - 1 \"A IN example. udp 50 false 1232\""),
            one(None, Some("fe80::1%eth0"))
        );
        assert_eq!(
            site(b"Nov 21 17:02:11 ns1 named[1187]: client @0x7f3c2c01a2d8 ns1.example#53124 (a): query: a IN A +"),
            one(None, None)
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        #[test]
        fn site_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let found = site(&bytes);
            proptest::prop_assert!(found.count >= 1);
        }

        #[test]
        fn site_never_panics_on_known_shapes(
            head in proptest::sample::select(vec![
                &b"21-Nov-2026 17:02:11.123 "[..],
                b"21-Nov-2026 17:02:11.118 CQ ",
                b"2026-11-21 17:02:11.118042 CQ ",
                b"11/21/2026 5:02:11 PM 0E70 PACKET  000001E4A8C3B170 UDP Rcv ",
                b"Nov 21 17:02:11 ",
                b"Nov 21 17:02:11 ns1 named[1187]: client @0x7f3c2c01a2d8 ",
                b"Nov 21 17:02:11 dnsmasq[812]: ",
                b"Nov 21 17:02:11 unbound[2245:0] ",
                b"[1795280531] unbound[2245:0] info: ",
                b"[INFO] ",
                b"msg=\"Question\" ts=\"",
                b"1795280531.118042\tC\t",
                b"{\"ts\":",
                b"{\"timestamp\":\"",
            ]),
            tail in proptest::collection::vec(
                proptest::sample::select(b"0123456789.:#/[]{}\"= \t\\-abcxAPMQRC\xff".to_vec()),
                0..120,
            ),
        ) {
            let mut line = head.to_vec();
            line.extend_from_slice(&tail);
            let found = site(&line);
            proptest::prop_assert!(found.count >= 1);
        }
    }
}
