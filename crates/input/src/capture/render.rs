//! The names of each DNS message through the [`NameRewriter`]: findings located by record
//! number and the name's offset in the message, and, when decoding or encoding, one line of
//! text per message that the `log` format reads back.
//!
//! A line holds the time (seconds since 1970 with nine decimals), `#` and the record
//! number, the transport (`udp`, `tcp`, or dnstap's event type such as `CLIENT_QUERY`),
//! the sender `>` the receiver (address and port, `-` when unknown), `query` or `response`,
//! the RCODE, then each name as its section, the type of its question or record and the
//! name, converted:
//!
//! ```text
//! 1795576290.476380000 #44 udp 127.0.0.1:5354 > 127.0.0.1:47312 response NOERROR question A bücher.example. answer A bücher.example.
//! ```
//!
//! Every field but the names is made of ASCII letters, digits and `.:#>[]_-`, so the log
//! scanner finds no name in them, and each name stands between spaces.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;

use super::{DnsMessage, Event, Problem};
use crate::finding::{DnsSite, Finding, Seen, Verdict};
use crate::rdata::type_name;
use crate::rewrite::{Mode, NameRewriter};
use idnscope_bytes::decimal::{push_padded, push_u64};

/// What rendering gave for a run of records, in record order.
#[derive(Debug, Default)]
pub struct Rendered {
    /// The text log (empty in audit mode).
    pub text: Vec<u8>,
    /// The findings.
    pub findings: Vec<Finding>,
    /// Records and messages that could not be read whole.
    pub problems: Vec<Problem>,
    /// Names seen (those with an ACE label or a character outside ASCII, see
    /// [`crate::stats::Stats::names`]).
    pub names: u64,
    /// ACE labels met.
    pub ace_labels: u64,
    /// Labels converted.
    pub converted: u64,
}

impl Rendered {
    /// Empties it, keeping the memory.
    pub fn clear(&mut self) {
        self.text.clear();
        self.findings.clear();
        self.problems.clear();
        self.names = 0;
        self.ace_labels = 0;
        self.converted = 0;
    }
}

/// Turns the events of an [`super::Extractor`] into [`Rendered`] output.
#[derive(Debug)]
pub struct Render {
    rewriter: NameRewriter,
    /// Decode or encode: a line of text per message.
    write: bool,
    /// The input's name in findings.
    file: Arc<str>,
    /// The findings of one name.
    found: Vec<Verdict>,
}

impl Render {
    /// Renders with `rewriter` (its mode says whether text is written); findings name the
    /// input `file`.
    pub fn new(rewriter: NameRewriter, file: Arc<str>) -> Self {
        Render {
            write: rewriter.mode() != Mode::Audit,
            rewriter,
            file,
            found: Vec::new(),
        }
    }

    /// Renders one event into `out`.
    pub fn event(&mut self, event: Event<'_>, out: &mut Rendered) {
        match event {
            Event::Message(message) => self.message(message, out),
            Event::Problem(problem) => out.problems.push(problem),
        }
    }

    /// Renders one message into `out`: its line of text (decode, encode) and its findings.
    pub fn message(&mut self, message: &DnsMessage, out: &mut Rendered) {
        if self.write {
            line_head(message, &mut out.text);
        }
        for (name, text) in message.names.iter() {
            if self.write {
                out.text.push(b' ');
                out.text.extend_from_slice(name.section.as_str().as_bytes());
                out.text.push(b' ');
                out.text
                    .extend_from_slice(type_name(name.rrtype).as_bytes());
                out.text.push(b' ');
            }
            // The reader says whether a label may be an ACE label, or is escaped or
            // non-ASCII: the rewriter's own test, made while the name was read.
            if !self
                .rewriter
                .needs_work_given(name.dashes_or_escape, name.not_ascii)
            {
                out.names += u64::from(name.not_ascii);
                if self.write {
                    out.text.extend_from_slice(text.as_bytes());
                }
                continue;
            }
            self.found.clear();
            let outcome =
                self.rewriter
                    .rewrite_needing_work(text.as_bytes(), &mut out.text, &mut self.found);
            out.names += u64::from(outcome.idn);
            out.ace_labels += u64::from(outcome.ace_labels);
            out.converted += u64::from(outcome.converted);
            for verdict in self.found.drain(..) {
                let label = &text.as_bytes()[verdict.label.clone()];
                out.findings.push(Finding {
                    file: self.file.to_string(),
                    line: message.record,
                    column: u64::from(name.offset) + 1,
                    name: text.to_owned(),
                    origin: None,
                    label: String::from_utf8_lossy(label).into_owned(),
                    verdict,
                    dns: Some(DnsSite {
                        time: message.time.to_string(),
                        src: message.src.map(|a| a.to_string()),
                        dst: message.dst.map(|a| a.to_string()),
                        section: name.section.as_str(),
                        rrtype: type_name(name.rrtype).into_owned(),
                    }),
                    seen: Some(seen(message)),
                });
            }
        }
        if self.write {
            out.text.push(b'\n');
        }
    }
}

/// When a message was captured, and its client: the sender of a query, the receiver of a
/// response.
fn seen(message: &DnsMessage) -> Seen {
    let nanos = i64::try_from(message.time.secs)
        .ok()
        .and_then(|secs| secs.checked_mul(1_000_000_000))
        .and_then(|ns| ns.checked_add(i64::from(message.time.nanos)));
    let client = if message.header.response {
        message.dst
    } else {
        message.src
    };
    Seen {
        first: nanos,
        last: None,
        count: 1,
        client: client.map(|address| address.ip().to_string()),
        // A message's time is its frame's, always read (an overflow is no calendar's).
        time_unread: nanos.is_none(),
    }
}

/// The fields of a message's line before its names, written digit by digit: through
/// `write!`, they took a third of the time of a capture's decoding.
fn line_head(message: &DnsMessage, text: &mut Vec<u8>) {
    push_time(text, message.time);
    text.extend_from_slice(b" #");
    push_u64(text, message.record);
    text.push(b' ');
    text.extend_from_slice(message.via.as_bytes());
    text.push(b' ');
    push_address(text, message.src);
    text.extend_from_slice(b" > ");
    push_address(text, message.dst);
    text.extend_from_slice(if message.header.response {
        b" response "
    } else {
        b" query "
    });
    text.extend_from_slice(rcode_name(message.header.rcode).as_bytes());
}

/// Writes `time` as its `Display` does: seconds, `.`, nine decimals.
fn push_time(text: &mut Vec<u8>, time: super::Time) {
    push_u64(text, time.secs);
    text.push(b'.');
    // Below a second, as every time stamp read is.
    push_padded(text, u64::from(time.nanos), 9);
}

/// Writes an address and port as `SocketAddr`'s `Display` does, `-` for none.
fn push_address(text: &mut Vec<u8>, address: Option<SocketAddr>) {
    match address {
        Some(SocketAddr::V4(a)) => {
            for (i, octet) in a.ip().octets().into_iter().enumerate() {
                if i > 0 {
                    text.push(b'.');
                }
                push_u64(text, u64::from(octet));
            }
            text.push(b':');
            push_u64(text, u64::from(a.port()));
        }
        // Rare, and with rules of its own for runs of zeros.
        Some(a @ SocketAddr::V6(_)) => {
            let _ = write!(text, "{a}");
        }
        None => text.push(b'-'),
    }
}

/// The mnemonic of a header RCODE (IANA's DNS RCODEs registry; `RCODE12` for the values it
/// leaves unassigned).
pub fn rcode_name(rcode: u8) -> &'static str {
    const NAMES: [&str; 16] = [
        "NOERROR",
        "FORMERR",
        "SERVFAIL",
        "NXDOMAIN",
        "NOTIMP",
        "REFUSED",
        "YXDOMAIN",
        "YXRRSET",
        "NXRRSET",
        "NOTAUTH",
        "NOTZONE",
        "DSOTYPENI",
        "RCODE12",
        "RCODE13",
        "RCODE14",
        "RCODE15",
    ];
    NAMES[usize::from(rcode & 0x0f)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Time;

    #[test]
    fn times_and_addresses_are_written_as_their_display_writes_them() {
        for (secs, nanos) in [
            (0, 0),
            (1_795_576_290, 476_380_000),
            (9, 5),
            (u64::MAX, 999_999_999),
        ] {
            let time = Time { secs, nanos };
            let mut text = Vec::new();
            push_time(&mut text, time);
            assert_eq!(String::from_utf8(text).unwrap(), time.to_string());
        }
        for address in [
            "0.0.0.0:0",
            "127.0.0.1:53",
            "255.255.255.255:65535",
            "10.20.0.9:5354",
            "[::1]:53",
            "[2001:db8::1:0:0:1]:8053",
            "[::ffff:192.0.2.1]:1",
        ] {
            let address: SocketAddr = address.parse().unwrap();
            let mut text = Vec::new();
            push_address(&mut text, Some(address));
            assert_eq!(String::from_utf8(text).unwrap(), address.to_string());
        }
        let mut text = Vec::new();
        push_address(&mut text, None);
        assert_eq!(text, b"-");
    }
}
