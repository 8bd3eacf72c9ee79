#!/usr/bin/env python3
"""Re-verify attacks.tsv and legit.tsv; exit 1 on any problem.

Checks, for every row: `ace` is the lower-case whole-domain ACE of `unicode` (each non-ASCII
label is 'xn--' + Python's RFC 3492 punycode codec), decoding `ace` gives `unicode` back,
the Python `idna` package (IDNA2008, and UTS #46 non-transitional mapping) encodes
`unicode` to the same `ace` unless the attack row's note starts with "invalid", no domain
appears twice, every attack `target` is in crates/audit/src/data/top-domains.txt, and no legit
name becomes a protected domain when its diacritics are stripped.

Run from anywhere: python3 tests/data/homograph/check.py   (needs `pip install idna`)
"""
import os
import sys
import unicodedata

import idna

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, '..', '..', '..', 'src', 'audit', 'data', 'top-domains.txt')


def ace(domain):
    return '.'.join(l.lower() if l.isascii() else 'xn--' + l.encode('punycode').decode().lower()
                    for l in domain.split('.'))


def unace(domain):
    return '.'.join(l[4:].encode().decode('punycode') if l.startswith('xn--') else l
                    for l in domain.split('.'))


def read(name, columns):
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        lines = f.read().split('\n')
    assert lines[-1] == '', f'{name}: no final newline'
    header, rows = lines[0].split('\t'), [l.split('\t') for l in lines[1:-1]]
    assert header == columns, f'{name}: header {header}'
    for r in rows:
        assert len(r) == len(columns), f'{name}: {r}'
    return rows


def main():
    problems = []
    top = {l.strip() for l in open(TOP, encoding='utf-8') if l.strip() and not l.startswith('#')}
    attacks = read('attacks.tsv', ['ace', 'unicode', 'target', 'source', 'note'])
    legit = read('legit.tsv', ['ace', 'unicode', 'note'])
    seen = set()
    for kind, rows in (('attack', attacks), ('legit', legit)):
        for r in rows:
            a, u, note = r[0], r[1], r[-1]
            if a in seen:
                problems.append(f'{a}: listed twice')
            seen.add(a)
            if ace(u) != a:
                problems.append(f'{a}: ace of {u!r} is {ace(u)}')
            if unace(a) != u:
                problems.append(f'{a}: decodes to {unace(a)!r}, not {u!r}')
            invalid = kind == 'attack' and note.startswith('invalid')
            for opts in ({}, {'uts46': True, 'transitional': False}):
                try:
                    got = idna.encode(u, **opts).decode()
                    if got != a:
                        problems.append(f'{a}: idna {opts} gives {got}')
                    elif invalid:
                        problems.append(f'{a}: noted invalid but idna {opts} accepts it')
                except idna.IDNAError as e:
                    if not invalid:
                        problems.append(f'{a}: idna {opts} rejects it: {e}')
            if kind == 'attack' and r[2] != '-' and r[2] not in top:
                problems.append(f'{a}: target {r[2]} is not in top-domains.txt')
            if kind == 'legit':
                bare = ''.join(c for c in unicodedata.normalize('NFD', u)
                               if not unicodedata.combining(c))
                if bare != u and any(bare == t or bare.endswith('.' + t) for t in top):
                    problems.append(f'{a}: {u} without diacritics is a protected domain')
    for p in problems:
        print(p)
    print(f'{len(attacks)} attacks, {len(legit)} legit, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
