"""Account passwords for people signing in from the browser: scrypt, salted, compared in
constant time.

Stored as ``scrypt$N$r$p$SALT$HASH`` (base64 without padding), so the cost can rise later
without breaking stored hashes. N = 2**14, r = 8, p = 1: memory-hard (16 MiB a hash), run
by the standard library's `hashlib.scrypt` off the event loop (`people.py`); ≈ 0.3 s a hash
measured on the shared 2-core development box under load.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

N, R, P = 2**14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
MIN_CHARS = 8
MAX_CHARS = 200
"""What a person may choose: at least 8 characters, at most 200 (scrypt reads it all)."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=128 * n * r * 2, dklen=HASH_BYTES)


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(SALT_BYTES)
    return f"scrypt${N}${R}${P}${_b64(salt)}${_b64(_derive(password, salt, N, R, P))}"


NO_PASSWORD = f"scrypt${N}${R}${P}${'A' * 22}${'A' * 43}"
"""What a sign-in without a stored hash (no such name, no password) is checked against: the
same scrypt work as a wrong password, so the time of the answer tells no name apart."""


def check_password(password: str, stored: str | None) -> bool:
    """Whether `password` is the one `stored` was made from (False for no stored hash, after
    the same work as for a wrong password)."""
    if not stored:
        _verify(password, NO_PASSWORD)
        return False
    return _verify(password, stored)


def _verify(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, want = stored.split("$")
        if scheme != "scrypt":
            return False
        got = _derive(password, _unb64(salt), int(n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(got, _unb64(want))
