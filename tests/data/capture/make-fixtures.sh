#!/usr/bin/env bash
# Makes the capture fixtures of tests/capture_*.rs with real software, on the loopback only:
# Unbound (Debian's package, built with --enable-dnstap) answers from a local zone that holds
# IDN names, invalid ACE names, a raw UTF-8 label and names in CNAME, DNAME, NS, MX, SRV, PTR,
# SOA, NAPTR and HTTPS records; kdig (knot-dnsutils) asks over UDP and TCP, IPv4 and IPv6;
# tcpdump writes the pcap, dumpcap the pcapng, and fstrm_capture (fstrm-bin) the dnstap file
# that Unbound sends over its Frame Streams socket.
#
# Needs root (capture on lo) and: unbound, knot-dnsutils, tcpdump, tshark (dumpcap),
# fstrm-bin. Usage: tests/data/capture/make-fixtures.sh  (writes next to itself)
set -euo pipefail
OUT="$(cd "$(dirname "$0")" && pwd)"
PORT=5354
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/unbound.conf" <<CONF
server:
    interface: 127.0.0.1@$PORT
    interface: ::1@$PORT
    do-ip6: yes
    do-daemonize: no
    chroot: ""
    username: ""
    directory: "$WORK"
    pidfile: "$WORK/unbound.pid"
    use-syslog: no
    logfile: "$WORK/unbound.log"
    verbosity: 1
    access-control: 127.0.0.0/8 allow
    access-control: ::1 allow
    module-config: "iterator"
    do-not-query-localhost: yes
    local-zone: "example." static
    local-data: "example. 3600 IN SOA ns1.example. hostmaster.xn--bcher-kva.example. 1 3600 900 604800 300"
    local-data: "example. 3600 IN NS ns1.example."
    local-data: "example. 3600 IN NS xn--n3h.example."
    local-data: "example. 3600 IN MX 10 mail.xn--mnchen-3ya.example."
    local-data: "xn--bcher-kva.example. 300 IN A 192.0.2.1"
    local-data: "xn--bcher-kva.example. 300 IN AAAA 2001:db8::1"
    local-data: "www.xn--bcher-kva.example. 300 IN CNAME xn--bcher-kva.example."
    local-data: "xn--mnchen-3ya.example. 300 IN MX 10 mx.xn--mnchen-3ya.example."
    local-data: "mx.xn--mnchen-3ya.example. 300 IN A 192.0.2.2"
    local-data: "_sip._tcp.xn--mnchen-3ya.example. 300 IN SRV 10 5 5060 sip.xn--80ak6aa92e.example."
    local-data: "xn--80ak6aa92e.example. 300 IN A 192.0.2.3"
    local-data: "xn--pple-43d.example. 300 IN A 192.0.2.4"
    local-data: "xn--bcher-kv.example. 300 IN A 192.0.2.5"
    local-data: "xn--abc.example. 300 IN TXT \"invalid ACE owner\""
    local-data: "xn--zz-zzzzzz.example. 300 IN CNAME xn--bcher-kva.example."
    local-data: "b\195\188cher.example. 300 IN A 192.0.2.6"
    local-data: "old.example. 300 IN DNAME xn--fiqs8s.example."
    local-data: "_sip._udp.example. 300 IN NAPTR 100 10 \"S\" \"SIP+D2U\" \"\" _sip._udp.xn--bcher-kva.example."
    local-data: "svc.example. 300 IN HTTPS 1 xn--bcher-kva.example. alpn=h2"
    local-zone: "2.0.192.in-addr.arpa." static
    local-data: "1.2.0.192.in-addr.arpa. 300 IN PTR xn--bcher-kva.example."
    dnstap:
    dnstap-enable: yes
    dnstap-socket-path: "$WORK/dnstap.sock"
    dnstap-send-identity: yes
    dnstap-send-version: yes
    dnstap-log-client-query-messages: yes
    dnstap-log-client-response-messages: yes
CONF

rm -f "$OUT/unbound.pcap" "$OUT/unbound.pcapng" "$OUT/unbound.dnstap"
fstrm_capture -t protobuf:dnstap.Dnstap -u "$WORK/dnstap.sock" -w "$WORK/unbound.dnstap" &
PIDS+=($!)
tcpdump -i lo -U -n -w "$WORK/unbound.pcap" "port $PORT" 2>"$WORK/tcpdump.log" &
PIDS+=($!)
dumpcap -q -i lo -f "port $PORT" -w "$WORK/unbound.pcapng" 2>"$WORK/dumpcap.log" &
PIDS+=($!)
sleep 2
unbound -d -c "$WORK/unbound.conf" &
UNBOUND=$!
PIDS+=($UNBOUND)
sleep 2

ask() { kdig -p "$PORT" +retry=0 +timeout=2 +noidn "$@" >/dev/null || true; }
while read -r name type; do
    ask @127.0.0.1 +notcp "$name" "$type"
    ask @127.0.0.1 +tcp "$name" "$type"
    ask @::1 +notcp "$name" "$type"
done <<'NAMES'
example SOA
example NS
example MX
xn--bcher-kva.example A
xn--bcher-kva.example AAAA
www.xn--bcher-kva.example A
xn--mnchen-3ya.example MX
_sip._tcp.xn--mnchen-3ya.example SRV
xn--pple-43d.example A
xn--bcher-kv.example A
xn--abc.example TXT
xn--zz-zzzzzz.example A
old.example DNAME
_sip._udp.example NAPTR
svc.example HTTPS
1.2.0.192.in-addr.arpa PTR
nonexistent.xn--bcher-kva.example A
NAMES
# A raw UTF-8 label in the question (with +noidn, kdig sends every name as its bytes are given).
ask @127.0.0.1 +notcp "bücher.example" A
ask @::1 +tcp "bücher.example" A

sleep 2
kill "$UNBOUND"
wait "$UNBOUND" 2>/dev/null || true
sleep 1
for pid in "${PIDS[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
sleep 2
cp "$WORK/unbound.pcap" "$WORK/unbound.pcapng" "$WORK/unbound.dnstap" "$OUT/"
ls -l "$OUT"
