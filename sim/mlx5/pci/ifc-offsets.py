#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Print bit offsets of fields of Linux's include/linux/mlx5/mlx5_ifc.h.

Usage: ifc-offsets.py HEADER.h... STRUCT.FIELD[.FIELD...] ...

HEADERs: mlx5_ifc.h and the headers defining the structs it nests
(include/linux/mlx5/*.h, drivers/net/ethernet/mellanox/mlx5/core/fpga/*.h).

mlx5_ifc.h describes every command and context as a struct of u8 arrays,
one element per bit ("u8 opcode[0x10];"), nested structs and unions.  This
prints, per argument, "STRUCT.FIELD bit_offset width" (width in bits), the
numbers sim/mlx5/pci/cx_ifc.h is written from.  Used by hand when a field is
added; nothing at build time depends on it.
"""
import re
import sys

def parse(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    types = {}
    pat = re.compile(r'\b(struct|union)\s+mlx5_ifc_(\w+?)(?:_bits)?\s*\{')
    pos = 0
    while True:
        m = pat.search(text, pos)
        if not m:
            break
        depth, i = 1, m.end()
        while depth:
            if text[i] == '{':
                depth += 1
            elif text[i] == '}':
                depth -= 1
            i += 1
        body = text[m.end():i - 1]
        types[m.group(2)] = (m.group(1), body)
        pos = i
    return types

def members(types, name):
    kind, body = types[name]
    out = []
    for decl in body.split(';'):
        decl = ' '.join(decl.split())
        if not decl:
            continue
        m = re.match(r'u8 (\w+)((?:\[(?:0x[0-9a-fA-F]+|\d+)?\])+)$', decl)
        if m:
            n = 1
            for d in re.findall(r'\[(\w*)\]', m.group(2)):
                n *= int(d, 0) if d else 0
            out.append((m.group(1), None, n))
            continue
        m = re.match(r'(?:struct|union) mlx5_ifc_(\w+?)(?:_bits)? (\w+)(?:\[(0x[0-9a-fA-F]+|\d*)\])?$', decl)
        if m:
            # pas[]: a flexible array, no bits of its own
            n = int(m.group(3), 0) if m.group(3) else (0 if m.group(3) == '' else 1)
            out.append((m.group(2), m.group(1), n))
            continue
        raise SystemExit(f'{name}: cannot parse "{decl}"')
    return kind, out

def size(types, name, memo={}):
    if name in memo:
        return memo[name]
    kind, ms = members(types, name)
    sizes = [(n if t is None else size(types, t) * n) for _, t, n in ms]
    memo[name] = max(sizes) if kind == 'union' else sum(sizes)
    return memo[name]

def lookup(types, path):
    parts = path.split('.')
    name, off = parts[0], 0
    width = size(types, name)
    for p in parts[1:]:
        kind, ms = members(types, name)
        o = 0
        for mname, t, n in ms:
            w = n if t is None else size(types, t) * n
            if mname == p:
                off += 0 if kind == 'union' else o
                width, name = w, t
                break
            if kind != 'union':
                o += w
        else:
            raise SystemExit(f'{path}: no field {p} in {name}')
    return off, width

def main():
    hdrs = [a for a in sys.argv[1:] if a.endswith('.h')]
    types = parse('\n'.join(open(h).read() for h in hdrs))
    for a in sys.argv[1:]:
        if a in hdrs:
            continue
        off, width = lookup(types, a)
        print(a, hex(off), hex(width))

main()
