#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""The RoCE v2 frames of tests/unit/cx/test_cx_roce_pkt.c, made by Scapy.

Prints each frame as a C array.  The IPv4 frames' ICRC is Scapy's own
(scapy.contrib.roce's BTH.compute_icrc); Scapy computes none for IPv6
("TODO support IPv6"), so the IPv6 frame's ICRC is computed here with
zlib's CRC-32 by the rule of IBA annex A17 as Linux's rxe_icrc.c applies
it (traffic class, flow label and hop limit as ones).  Made with Debian
12's python3-scapy 2.5.0:  /usr/bin/python3 tests/unit/cx/roce-vectors.py
"""
import struct
import zlib

from scapy.compat import raw
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

SMAC = "02:00:00:00:00:01"
DMAC = "02:00:00:00:00:02"


def c_array(name, b):
    print("static const uint8_t %s[%d] = {" % (name, len(b)))
    for i in range(0, len(b), 12):
        print("\t" + " ".join("0x%02x," % x for x in b[i:i + 12]))
    print("};")


def v6_icrc(frame):
    """The ICRC of an untagged IPv6 RoCE v2 frame (its last 4 bytes)."""
    m = bytearray(frame[14:-4])
    m[0] |= 0x0f        # traffic class (high nibble) ...
    m[1:4] = b"\xff" * 3  # ... its low nibble and the flow label
    m[7] = 0xff         # hop limit
    m[40 + 6:40 + 8] = b"\xff\xff"  # UDP checksum
    m[48 + 4] = 0xff    # BTH resv8a (FECN, BECN, resv6)
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)))


# IPv4 RC SEND_ONLY of 16 bytes to QP 0x000123, PSN 0x000456, AckReq,
# ECN ECT(0) with DSCP 26.
send = (Ether(src=SMAC, dst=DMAC) /
        IP(src="192.168.7.1", dst="192.168.7.2", id=0, flags="DF", ttl=64,
           tos=0x6a) /
        UDP(sport=0xc0de, dport=4791, chksum=0) /
        BTH(opcode=0x04, pkey=0xffff, dqpn=0x000123, ackreq=1, psn=0x000456) /
        Raw(bytes(range(0x10, 0x20))))
c_array("scapy_v4_send", raw(send))

# IPv4 RC RDMA WRITE ONLY: a RETH (VA 0x00007f0012345000, R_Key
# 0x00abcdef, DMA length 8; Scapy has no RETH layer) and 8 bytes.
reth = struct.pack(">QII", 0x00007f0012345000, 0x00abcdef, 8)
write = (Ether(src=SMAC, dst=DMAC) /
         IP(src="10.1.2.3", dst="10.1.2.4", id=0, flags="DF", ttl=255,
            tos=0x00) /
         UDP(sport=0xe000, dport=4791, chksum=0) /
         BTH(opcode=0x0a, pkey=0x8001, dqpn=0x00beef, psn=0xfffffe) /
         Raw(reth + b"\xa5\x5a\xc3\x3c\x0f\xf0\x99\x66"))
c_array("scapy_v4_write", raw(write))

# IPv6 RC SEND_ONLY of 8 bytes, traffic class 0x62, flow label 0xabcde,
# hop limit 64, UDP checksum 0 (as Linux's rxe sends it).
v6 = (Ether(src=SMAC, dst=DMAC) /
      IPv6(src="fe80::1", dst="fe80::2", tc=0x62, fl=0xabcde, hlim=64) /
      UDP(sport=0xd00d, dport=4791, chksum=0) /
      BTH(opcode=0x04, pkey=0xffff, dqpn=0x000042, psn=0x000001, icrc=0) /
      Raw(b"\x01\x23\x45\x67\x89\xab\xcd\xef"))
f = raw(v6)
c_array("scapy_v6_send", f[:-4] + v6_icrc(f))
