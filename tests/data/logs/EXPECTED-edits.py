#!/usr/bin/env python3
"""The hand-chosen edits that turn each sample log into its expected outputs.

Not a sample and not an implementation: every entry below was chosen by reading the sample
line by line and applying docs/logspec (section numbers refer to it). Nothing here searches
for names; each entry names the exact line, the exact context-qualified text and how many
times it occurs on that line, and the script refuses to run if a count is wrong.

Entries:
  D(line, old, new, count)     decode output: replace `old` by `new` on that line
  E(line, old, new, count)     encode output: replace `old` by `new` on that line
  F(line, label, nth, reason)  invalid-ace finding (decode and encode) at the nth (0-based)
                               occurrence of `label` on that line
  X(line, label, nth, reason)  encode-error finding (encode only)

Run from this folder: python3 EXPECTED-edits.py  (rewrites F.decoded, F.encoded,
F.findings, F.encode-findings for every sample F).
"""
import os
import sys

def D(line, old, new, count=1): return ('D', line, old, new, count)
def E(line, old, new, count=1): return ('E', line, old, new, count)
def F(line, label, nth, reason): return ('F', line, label, nth, reason)
def X(line, label, nth, reason): return ('X', line, label, nth, reason)

BUCHER = 'bücher'      # xn--bcher-kva (also XN--BCHER-KVA)
APPLE = 'аррӏе'        # xn--80ak6aa92e (also XN--80AK6AA92E): U+0430 U+0440 U+0440 U+04CF U+0435
APPLE_MIXED = 'аpple'  # xn--pple-43d: U+0430 then Latin "pple"
MUNCHEN = 'münchen'    # xn--mnchen-3ya
PRIMER = 'пример'      # xn--e1afmkfd
RF = 'рф'              # xn--p1ai

ACE_ERR = 'idna-invalid'   # xn--a-ecp -> "a⒈" (U+2488 disallowed)
TRUNC = 'truncated'        # xn--zzzzzzzzz: 3 code points, then ends inside the 4th number

EDITS = {
    'bind9-querylog.log': [
        D(1, '(xn--bcher-kva.example)', f'({BUCHER}.example)'),
        D(1, ' xn--bcher-kva.example IN', f' {BUCHER}.example IN'),
        D(2, '(www.xn--bcher-kva.example)', f'(www.{BUCHER}.example)'),
        D(2, ' www.xn--bcher-kva.example IN', f' www.{BUCHER}.example IN'),
        D(3, '(XN--80AK6AA92E.com)', f'({APPLE}.com)'),
        D(3, ' XN--80AK6AA92E.com IN', f' {APPLE}.com IN'),
        F(4, 'xn--a-ecp', 0, ACE_ERR),
        F(4, 'xn--a-ecp', 1, ACE_ERR),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
        F(5, 'xn--zzzzzzzzz', 1, TRUNC),
        E(6, '(b\\195\\188cher.example)', '(xn--bcher-kva.example)'),
        E(6, ' b\\195\\188cher.example IN', ' xn--bcher-kva.example IN'),
        # line 7 odd\.label\040x.example: \040 < 128, no anchor. line 8 ".": no anchor.
        D(9, '(xn--bcher-kva.example)', f'({BUCHER}.example)'),
        D(9, ' xn--bcher-kva.example IN', f' {BUCHER}.example IN'),
        F(10, 'xn--zzzzzzzzz', 0, TRUNC),
        F(10, 'xn--zzzzzzzzz', 1, TRUNC),
    ],
    'bind9-querylog.syslog': [
        D(1, '(xn--bcher-kva.example)', f'({BUCHER}.example)'),
        D(1, ' xn--bcher-kva.example IN', f' {BUCHER}.example IN'),
        D(2, '(xn--80ak6aa92e.com)', f'({APPLE}.com)'),
        D(2, ' xn--80ak6aa92e.com IN', f' {APPLE}.com IN'),
        F(3, 'xn--a-ecp', 0, ACE_ERR),
        F(3, 'xn--a-ecp', 1, ACE_ERR),
        F(4, 'xn--zzzzzzzzz', 0, TRUNC),
        F(4, 'xn--zzzzzzzzz', 1, TRUNC),
    ],
    'coredns-log-custom-combined.log': [
        D(1, ' xn--bcher-kva.example. udp', f' {BUCHER}.example. udp'),
        F(2, 'xn--a-ecp', 0, ACE_ERR),
        D(3, ' xn--80ak6aa92e.com. A', f' {APPLE}.com. A'),
    ],
    'coredns-log.log': [
        D(1, ' xn--bcher-kva.example. udp', f' {BUCHER}.example. udp'),
        D(2, ' www.xn--bcher-kva.example. udp', f' www.{BUCHER}.example. udp'),
        D(3, ' xn--80ak6aa92e.com. tcp', f' {APPLE}.com. tcp'),
        F(4, 'xn--a-ecp', 0, ACE_ERR),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
        E(6, ' b\\195\\188cher.example. udp', ' xn--bcher-kva.example. udp'),
    ],
    'dnsmasq-log-queries-extra.log': [
        D(1, ' xn--bcher-kva.example from', f' {BUCHER}.example from'),
        D(2, ' xn--bcher-kva.example to', f' {BUCHER}.example to'),
        D(3, ' xn--bcher-kva.example is', f' {BUCHER}.example is'),
        F(4, 'xn--zzzzzzzzz', 0, TRUNC),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
    ],
    'dnsmasq-pihole.log': [
        D(1, ' xn--bcher-kva.example from', f' {BUCHER}.example from'),
        D(2, ' xn--bcher-kva.example to', f' {BUCHER}.example to'),
        D(3, ' xn--bcher-kva.example is', f' {BUCHER}.example is'),
        D(4, ' xn--80ak6aa92e.com from', f' {APPLE}.com from'),
        D(5, ' xn--80ak6aa92e.com is', f' {APPLE}.com is'),
        F(6, 'xn--a-ecp', 0, ACE_ERR),
        F(7, 'xn--a-ecp', 0, ACE_ERR),
        F(8, 'xn--zzzzzzzzz', 0, TRUNC),
        F(9, 'xn--zzzzzzzzz', 0, TRUNC),
        F(10, 'xn--zzzzzzzzz', 0, TRUNC),
        D(16, ' is xn--bcher-kva.example\n', f' is {BUCHER}.example\n'),
        D(17, ' xn--pple-43d.com is', f' {APPLE_MIXED}.com is'),
        D(18, ' xn--mnchen-3ya.de from', f' {MUNCHEN}.de from'),
        D(19, ' xn--mnchen-3ya.de is', f' {MUNCHEN}.de is'),
    ],
    'dnstap-ldns-q.txt': [
        D(1, '"xn--bcher-kva.example."', f'"{BUCHER}.example."'),
        D(2, '"xn--bcher-kva.example."', f'"{BUCHER}.example."'),
        D(3, '"xn--bcher-kva.example."', f'"{BUCHER}.example."'),
        D(4, '"xn--bcher-kva.example."', f'"{BUCHER}.example."'),
        D(5, '"XN--80AK6AA92E.com."', f'"{APPLE}.com."'),
        F(6, 'xn--a-ecp', 0, ACE_ERR),
        F(7, 'xn--zzzzzzzzz', 0, TRUNC),
        E(8, '"b\\195\\188cher.example."', '"xn--bcher-kva.example."'),
    ],
    'dnstap-ldns-y.yaml': [
        D(16, ';xn--bcher-kva.example.\t', f';{BUCHER}.example.\t'),
        D(41, ';xn--bcher-kva.example.\t', f';{BUCHER}.example.\t'),
        D(44, '    xn--bcher-kva.example.\t300', f'    {BUCHER}.example.\t300'),
        F(67, 'xn--a-ecp', 0, ACE_ERR),
    ],
    'dnstap-read-default.txt': [
        D(1, ' xn--bcher-kva.example/IN/A', f' {BUCHER}.example/IN/A'),
        D(2, ' xn--bcher-kva.example/IN/A', f' {BUCHER}.example/IN/A'),
        D(3, ' xn--bcher-kva.example/IN/A', f' {BUCHER}.example/IN/A'),
        D(4, ' xn--bcher-kva.example/IN/A', f' {BUCHER}.example/IN/A'),
        D(5, ' XN--80AK6AA92E.com/IN/AAAA', f' {APPLE}.com/IN/AAAA'),
        F(6, 'xn--a-ecp', 0, ACE_ERR),
        F(7, 'xn--zzzzzzzzz', 0, TRUNC),
        F(8, 'xn--zzzzzzzzz', 0, TRUNC),
        E(9, ' b\\195\\188cher.example/IN/A', ' xn--bcher-kva.example/IN/A'),
    ],
    'dnstap-read-y.yaml': [
        D(30, "'xn--bcher-kva.example. IN A'", f"'{BUCHER}.example. IN A'"),
        D(39, ';xn--bcher-kva.example.\t', f';{BUCHER}.example.\t'),
        D(70, "'xn--bcher-kva.example. IN A'", f"'{BUCHER}.example. IN A'"),
        D(72, "'xn--bcher-kva.example. 300 IN A", f"'{BUCHER}.example. 300 IN A"),
        D(80, ';xn--bcher-kva.example.\t', f';{BUCHER}.example.\t'),
        D(83, '    xn--bcher-kva.example.\t300', f'    {BUCHER}.example.\t300'),
        F(109, 'xn--zzzzzzzzz', 0, TRUNC),
        F(115, 'xn--zzzzzzzzz', 0, TRUNC),
    ],
    'pdns-cof.jsonl': [
        D(1, '"rrname":"xn--bcher-kva.example"', f'"rrname":"{BUCHER}.example"'),
        D(2, '"rrname":"xn--80ak6aa92e.com"', f'"rrname":"{APPLE}.com"'),
        D(3, '"rrname":"www.xn--80ak6aa92e.com"', f'"rrname":"www.{APPLE}.com"'),
        D(3, '"rdata":"xn--80ak6aa92e.com"', f'"rdata":"{APPLE}.com"'),
        F(4, 'xn--a-ecp', 0, ACE_ERR),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
        D(6, '"rrname":"xn--bcher-kva.example"', f'"rrname":"{BUCHER}.example"'),
    ],
    'pdns-dnsdb-apiv2.jsonl': [
        D(2, '"rrname":"xn--bcher-kva.example."', f'"rrname":"{BUCHER}.example."'),
        D(3, '"rrname":"xn--bcher-kva.example."', f'"rrname":"{BUCHER}.example."'),
        D(4, '"rrname":"xn--80ak6aa92e.com."', f'"rrname":"{APPLE}.com."'),
        D(5, '"rrname":"www.xn--80ak6aa92e.com."', f'"rrname":"www.{APPLE}.com."'),
        D(5, '"bailiwick":"xn--80ak6aa92e.com."', f'"bailiwick":"{APPLE}.com."'),
        D(5, '"rdata":["xn--80ak6aa92e.com."]', f'"rdata":["{APPLE}.com."]'),
        F(6, 'xn--a-ecp', 0, ACE_ERR),
        F(7, 'xn--zzzzzzzzz', 0, TRUNC),
        # JSON line: \\195\\188 is the escape of an escape, i.e. the bytes C3 BC.
        E(8, '"rrname":"b\\\\195\\\\188cher.example."', '"rrname":"xn--bcher-kva.example."'),
    ],
    'pdns-sie-dnsdedupe.jsonl': [
        D(1, '"rrname":"xn--bcher-kva.example."', f'"rrname":"{BUCHER}.example."'),
        D(2, '"rrname":"xn--80ak6aa92e.com."', f'"rrname":"{APPLE}.com."'),
        F(3, 'xn--a-ecp', 0, ACE_ERR),
        F(3, 'xn--zzzzzzzzz', 0, TRUNC),   # in "ns1.xn--zzzzzzzzz.ru."
    ],
    'pdns.csv': [
        D(2, 'xn--bcher-kva.example.,A,', f'{BUCHER}.example.,A,'),
        D(3, 'xn--80ak6aa92e.com.,A,', f'{APPLE}.com.,A,'),
        D(4, 'www.xn--80ak6aa92e.com.,CNAME,xn--80ak6aa92e.com.,',
             f'www.{APPLE}.com.,CNAME,{APPLE}.com.,'),
        D(4, ',3,xn--80ak6aa92e.com.\n', f',3,{APPLE}.com.\n'),
        F(5, 'xn--a-ecp', 0, ACE_ERR),
        F(6, 'xn--zzzzzzzzz', 0, TRUNC),
        # line 7 "odd\,label.example.": no anchor.
    ],
    'plain-names-crlf.txt': [
        D(1, 'xn--bcher-kva.example\r\n', f'{BUCHER}.example\r\n'),
        D(2, 'xn--80ak6aa92e.com\r\n', f'{APPLE}.com\r\n'),
        F(3, 'xn--zzzzzzzzz', 0, TRUNC),
    ],
    'plain-names-nul.bin': [
        # No LF at all: the whole file is line 1 (NUL ends a name, not a line).
        D(1, 'xn--bcher-kva.example\0', f'{BUCHER}.example\0'),
        D(1, '\0xn--80ak6aa92e.com\0', f'\0{APPLE}.com\0'),
        F(1, 'xn--a-ecp', 0, ACE_ERR),
    ],
    'plain-names.txt': [
        D(2, 'xn--bcher-kva.example\n', f'{BUCHER}.example\n'),
        D(3, 'www.xn--bcher-kva.example.\n', f'www.{BUCHER}.example.\n'),
        D(4, 'XN--BCHER-KVA.EXAMPLE\n', f'{BUCHER}.EXAMPLE\n'),
        D(5, 'xn--80ak6aa92e.com\n', f'{APPLE}.com\n'),
        D(6, 'xn--pple-43d.com\n', f'{APPLE_MIXED}.com\n'),
        F(7, 'xn--a-ecp', 0, ACE_ERR),
        F(8, 'xn--zzzzzzzzz', 0, TRUNC),
        F(9, 'xn--zzzzzzzzz', 0, TRUNC),
        E(11, 'bücher.example\n', 'xn--bcher-kva.example\n'),
        E(12, f'{APPLE}.com\n', 'xn--80ak6aa92e.com\n'),
        D(13, 'xn--mnchen-3ya.de\n', f'{MUNCHEN}.de\n'),
        D(14, 'xn--e1afmkfd.xn--p1ai\n', f'{PRIMER}.{RF}\n'),
        D(15, '_dmarc.xn--bcher-kva.example\n', f'_dmarc.{BUCHER}.example\n'),
        D(16, '*.xn--bcher-kva.example\n', f'*.{BUCHER}.example\n'),
        E(17, 'b\\195\\188cher.example\n', 'xn--bcher-kva.example\n'),
        F(19, 'xn--', 0, 'empty'),
        F(20, 'xn---', 0, 'bad-digit'),      # RFC 3492 6.2: "-" is a digit-less code point
        F(21, 'xn--abc-', 0, 'ascii-only'),
    ],
    'powerdns-recursor-legacy.log': [
        D(1, "'xn--bcher-kva.example.|A'", f"'{BUCHER}.example.|A'"),
        D(2, "'xn--bcher-kva.example.|A'", f"'{BUCHER}.example.|A'"),
        D(3, "'xn--80ak6aa92e.com.|AAAA'", f"'{APPLE}.com.|AAAA'"),
        F(4, 'xn--a-ecp', 0, ACE_ERR),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
        F(6, 'xn--zzzzzzzzz', 0, TRUNC),
    ],
    'powerdns-recursor-structured.log': [
        D(1, 'qname="xn--bcher-kva.example."', f'qname="{BUCHER}.example."'),
        D(2, 'qname="xn--bcher-kva.example."', f'qname="{BUCHER}.example."'),
        D(3, 'qname="xn--80ak6aa92e.com."', f'qname="{APPLE}.com."'),
        F(4, 'xn--a-ecp', 0, ACE_ERR),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
        # line 6 qname="b\\195\\188cher.example.": the line starts with "N", not "{"/"[",
        # so it is not JSON (section 2) and \\ is an escaped backslash followed by the
        # digits 195: no escaped byte >= 0x80, no anchor, kept in both modes. See EXPECTED.md.
    ],
    'suricata-eve-dns.json': [
        D(1, '"rrname":"xn--bcher-kva.example"', f'"rrname":"{BUCHER}.example"'),
        D(2, '"rrname":"xn--bcher-kva.example"', f'"rrname":"{BUCHER}.example"', 2),
        D(3, '"rrname":"www.xn--80ak6aa92e.com"', f'"rrname":"www.{APPLE}.com"', 2),
        D(3, '"rdata":"xn--80ak6aa92e.com"', f'"rdata":"{APPLE}.com"'),
        D(3, '{"rrname":"xn--80ak6aa92e.com"', f'{{"rrname":"{APPLE}.com"'),
        F(4, 'xn--a-ecp', 0, ACE_ERR),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
        D(6, '"rrname":"xn--pple-43d.com"', f'"rrname":"{APPLE_MIXED}.com"'),
        D(7, '"rrname":"xn--mnchen-3ya.de"', f'"rrname":"{MUNCHEN}.de"'),
        D(8, '"rrname":"xn--mnchen-3ya.de"', f'"rrname":"{MUNCHEN}.de"', 2),
    ],
    'unbound-log-queries-replies.log': [
        D(1, ' xn--bcher-kva.example. A IN', f' {BUCHER}.example. A IN'),
        D(2, ' xn--bcher-kva.example. A IN', f' {BUCHER}.example. A IN'),
        D(3, ' XN--80AK6AA92E.com. AAAA IN', f' {APPLE}.com. AAAA IN'),
        D(4, ' XN--80AK6AA92E.com. AAAA IN', f' {APPLE}.com. AAAA IN'),
        F(5, 'xn--a-ecp', 0, ACE_ERR),
        F(6, 'xn--a-ecp', 0, ACE_ERR),
        F(7, 'xn--zzzzzzzzz', 0, TRUNC),
        F(8, 'xn--zzzzzzzzz', 0, TRUNC),
        # lines 9-10 b??cher.example.: no anchor.
    ],
    'unbound-log-tag-queryreply-ascii-time.log': [
        D(1, ' xn--bcher-kva.example. A IN', f' {BUCHER}.example. A IN'),
        D(2, ' xn--bcher-kva.example. A IN', f' {BUCHER}.example. A IN'),
        D(3, ' xn--80ak6aa92e.com. A IN', f' {APPLE}.com. A IN'),
        D(4, ' xn--80ak6aa92e.com. A IN', f' {APPLE}.com. A IN'),
        F(5, 'xn--zzzzzzzzz', 0, TRUNC),
        F(6, 'xn--zzzzzzzzz', 0, TRUNC),
    ],
    'windows-dns-debug.log': [
        # Section 3: the new length is the UTF-8 octet count: bücher = 7, аррӏе = 10.
        D(31, ' (13)xn--bcher-kva(7)example(0)\r\n', f' (7){BUCHER}(7)example(0)\r\n'),
        D(32, ' (13)xn--bcher-kva(7)example(0)\r\n', f' (7){BUCHER}(7)example(0)\r\n'),
        D(33, ' (14)XN--80AK6AA92E(3)com(0)\r\n', f' (10){APPLE}(3)com(0)\r\n'),
        D(34, ' (14)XN--80AK6AA92E(3)com(0)\r\n', f' (10){APPLE}(3)com(0)\r\n'),
        F(35, 'xn--a-ecp', 0, ACE_ERR),
        F(36, 'xn--a-ecp', 0, ACE_ERR),
        F(37, 'xn--zzzzzzzzz', 0, TRUNC),
        F(38, 'xn--zzzzzzzzz', 0, TRUNC),
        D(39, ' (6)_dmarc(13)xn--bcher-kva(7)example(0)\r\n',
              f' (6)_dmarc(7){BUCHER}(7)example(0)\r\n'),
    ],
    'zeek-dns.json': [
        D(1, '"query":"xn--bcher-kva.example"', f'"query":"{BUCHER}.example"'),
        D(2, '"query":"xn--80ak6aa92e.com"', f'"query":"{APPLE}.com"'),
        F(3, 'xn--a-ecp', 0, ACE_ERR),
        F(4, 'xn--zzzzzzzzz', 0, TRUNC),
        E(5, '"query":"bücher.example"', '"query":"xn--bcher-kva.example"'),
        D(6, '"query":"www.xn--bcher-kva.example"', f'"query":"www.{BUCHER}.example"'),
        D(6, '"original_query":"WWW.XN--BCHER-KVA.example"',
             f'"original_query":"WWW.{BUCHER}.example"'),
        D(6, '"answers":["xn--bcher-kva.example",', f'"answers":["{BUCHER}.example",'),
        # JSON line: bad\\xffname = bad, byte FF, name: not UTF-8.
        X(7, 'bad\\\\xffname', 0, 'idna-invalid'),
    ],
    'zeek-dns.log': [
        # line 1 "#separator \x09": \x09 < 0x80, no anchor.
        D(9, '\txn--bcher-kva.example\t', f'\t{BUCHER}.example\t'),
        D(10, '\txn--80ak6aa92e.com\t', f'\t{APPLE}.com\t'),
        F(11, 'xn--a-ecp', 0, ACE_ERR),
        F(12, 'xn--zzzzzzzzz', 0, TRUNC),
        E(13, '\tbücher.example\t', '\txn--bcher-kva.example\t'),
        D(14, '\twww.xn--bcher-kva.example\t', f'\twww.{BUCHER}.example\t'),
        D(14, '\txn--bcher-kva.example,192.0.2.10\t', f'\t{BUCHER}.example,192.0.2.10\t'),
        X(15, 'bad\\xffname', 0, 'idna-invalid'),
    ],
    'zone-example.zone': [
        D(6, 'xn--bcher-kva   IN A', f'{BUCHER}   IN A'),
        D(7, 'www.xn--bcher-kva IN CNAME xn--bcher-kva.example.\n',
             f'www.{BUCHER} IN CNAME {BUCHER}.example.\n'),
        D(8, 'XN--BCHER-KVA   IN TXT', f'{BUCHER}   IN TXT'),
        D(9, ' xn--80ak6aa92e.com.\n', f' {APPLE}.com.\n'),
        F(10, 'xn--a-ecp', 0, ACE_ERR),
        F(11, 'xn--zzzzzzzzz', 0, TRUNC),
        F(12, 'xn--zzzzzzzzz', 0, TRUNC),
        # line 14 esc\046dot: \046 < 128, no anchor.
        E(15, '\\195\\188ml      IN A', 'xn--ml-wka      IN A'),   # üml
    ],
}


def apply(lines, ops, mode):
    out = list(lines)
    for op in ops:
        if op[0] != mode:
            continue
        _, n, old, new, count = op
        # Match on the line with its LF (the last element has none).
        cur = out[n - 1] + (b'\n' if n < len(out) else b'')
        o, w = old.encode(), new.encode()
        got = cur.count(o)
        if got != count:
            sys.exit(f'{mode} line {n}: {old!r} found {got} times, expected {count}')
        cur = cur.replace(o, w)
        out[n - 1] = cur[:-1] if n < len(out) else cur
    return out


def findings(lines, ops, kinds):
    rows = []
    for op in ops:
        if op[0] not in kinds:
            continue
        _, n, label, nth, reason = op
        line, lab, col = lines[n - 1], label.encode(), -1
        for _ in range(nth + 1):
            col = line.index(lab, col + 1)
        kind = 'invalid-ace' if op[0] == 'F' else 'encode-error'
        rows.append((n, col + 1, f'{n}:{col + 1}: {kind}: {label}: {reason}\n'))
    rows.sort()
    if len({(r[0], r[1]) for r in rows}) != len(rows):
        sys.exit('two findings at one place')
    return ''.join(r[2] for r in rows).encode()


def main():
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    for name, ops in EDITS.items():
        data = open(name, 'rb').read()
        lines = data.split(b'\n')
        outputs = {
            '.decoded': b'\n'.join(apply(lines, ops, 'D')),
            '.encoded': b'\n'.join(apply(lines, ops, 'E')),
            '.findings': findings(lines, ops, 'F'),
            '.encode-findings': findings(lines, ops, 'FX'),
        }
        for suffix, content in outputs.items():
            with open(name + suffix, 'wb') as f:
                f.write(content)


if __name__ == '__main__':
    main()
