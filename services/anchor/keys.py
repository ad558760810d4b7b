"""The server's Ed25519 signing key: a PEM file outside the database, created on first use.

The key lives in ``BALOOT_SIGNING_KEY_FILE`` if set, else beside the embedded database's data
(``services.db.DATA_DIR / "signing-key.pem"``).  Someone who can rewrite the database must not also be
able to re-sign it, so the key is never written to PostgreSQL; keep a copy of the public key (or its
``key_id``) somewhere the database's administrators cannot change.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALGORITHM = "Ed25519"


def signing_key_path() -> Path:
    """Where the signing key is: $BALOOT_SIGNING_KEY_FILE, else beside the embedded database's data."""
    configured = os.environ.get("BALOOT_SIGNING_KEY_FILE")
    if configured:
        return Path(configured).expanduser()
    from services.db import DATA_DIR

    return DATA_DIR / "signing-key.pem"


def load_or_create_key(path: Path) -> Ed25519PrivateKey:
    """The key in the PEM file at `path`; a new one written there (mode 0600) if there is none."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        # Written whole to a private temporary file, then linked into place: two processes starting
        # together must not both create a key, nor read one half written.  link() fails if one exists.
        fd, tmp = tempfile.mkstemp(prefix=".signing-key-", dir=path.parent)  # mkstemp creates it 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(pem)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path} holds a {type(key).__name__}, not an Ed25519 private key")
    return key


def public_key_raw(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of the public key."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id_of(public_key_hex: str) -> str:
    """A short name for a public key: the first 16 hex digits of sha256 of its raw bytes."""
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


@dataclass(frozen=True)
class Signer:
    """A private key with its public key (raw hex) and key id: what signs receipts and checkpoints."""

    key: Ed25519PrivateKey
    public_key_hex: str
    key_id: str

    @classmethod
    def of(cls, key: Ed25519PrivateKey) -> Signer:
        public_hex = public_key_raw(key).hex()
        return cls(key, public_hex, key_id_of(public_hex))

    def sign(self, message: bytes) -> bytes:
        return self.key.sign(message)

    def __repr__(self) -> str:  # never print the private key
        return f"Signer(key_id={self.key_id!r})"


def default_signer() -> Signer:
    """The server's signer, from signing_key_path() (created on first use)."""
    return Signer.of(load_or_create_key(signing_key_path()))


def verify_signature(public_key_hex: str, message: bytes, signature: bytes) -> bool:
    """Whether `signature` is the holder of `public_key_hex`'s Ed25519 signature of `message`."""
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex)).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True
