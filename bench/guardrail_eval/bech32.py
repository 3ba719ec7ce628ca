"""A small reference encoder for Bitcoin addresses, written from BIP-173 and BIP-350.

Only what the evaluation corpora need: segwit v0 (bech32) and v1+ (bech32m, taproot)
addresses from a witness program, and base58check for legacy P2PKH/P2SH addresses. It is a
data generator, independent of the detectors under test.
"""

from __future__ import annotations

import hashlib

CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
BECH32_CONST = 1
BECH32M_CONST = 0x2BC830A3
GENERATORS = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def polymod(values: list[int]) -> int:
    """The BCH checksum polynomial of BIP-173."""
    chk = 1
    for value in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ value
        for i, generator in enumerate(GENERATORS):
            chk ^= generator if (top >> i) & 1 else 0
    return chk


def hrp_expand(hrp: str) -> list[int]:
    """The human-readable part as checksum input."""
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def checksum(hrp: str, data: list[int], const: int) -> list[int]:
    """Six checksum characters (as 5-bit values) for ``data``."""
    mod = polymod([*hrp_expand(hrp), *data, 0, 0, 0, 0, 0, 0]) ^ const
    return [(mod >> 5 * (5 - i)) & 31 for i in range(6)]


def verify(hrp: str, data: list[int]) -> int:
    """The constant the checksum of ``data`` (with its checksum) matches."""
    return polymod(hrp_expand(hrp) + data)


def convertbits(data: bytes, frombits: int, tobits: int) -> list[int]:
    """Regroup bits, padding the last group (BIP-173's reference behaviour)."""
    acc = bits = 0
    out: list[int] = []
    maxv = (1 << tobits) - 1
    for value in data:
        acc = (acc << frombits) | value
        bits += frombits
        while bits >= tobits:
            bits -= tobits
            out.append((acc >> bits) & maxv)
    if bits:
        out.append((acc << (tobits - bits)) & maxv)
    return out


def segwit_address(hrp: str, version: int, program: bytes) -> str:
    """A segwit address: bech32 for version 0, bech32m for versions 1-16 (BIP-350)."""
    if not 0 <= version <= 16 or not 2 <= len(program) <= 40:
        raise ValueError(f"segwit_address: bad version {version} or program length")
    data = [version, *convertbits(program, 8, 5)]
    const = BECH32_CONST if version == 0 else BECH32M_CONST
    return hrp + "1" + "".join(CHARSET[d] for d in data + checksum(hrp, data, const))


def base58check(payload: bytes) -> str:
    """Base58check of ``payload`` (version byte included)."""
    raw = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    number = int.from_bytes(raw, "big")
    out = ""
    while number:
        number, rest = divmod(number, 58)
        out = BASE58[rest] + out
    pad = len(raw) - len(raw.lstrip(b"\0"))
    return "1" * pad + out
