"""The demo's login: one password per person, made by `classroom start`.

Each person gets their own random password (never a shared one, which would let any
student log in as another); the hub keeps only salted hashes. A university would use
its own authenticator instead (docs/en/classroom.md).
"""
import hashlib
import hmac
import json
import secrets

from jupyterhub.auth import Authenticator
from traitlets import Unicode

ROUNDS = 200_000


def hashed(password, salt=None):
    salt = salt or secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), ROUNDS)
    return f"{salt}${digest.hex()}"


def matches(password, stored):
    salt, _ = stored.split("$", 1)
    return hmac.compare_digest(hashed(password, salt), stored)


class RosterAuthenticator(Authenticator):
    """Accepts a roster's login name with that person's password, nothing else."""

    hashes_file = Unicode(help="JSON file: login name -> salted password hash").tag(config=True)

    async def authenticate(self, handler, data):
        with open(self.hashes_file, encoding="utf-8") as handle:
            stored = json.load(handle).get(data.get("username", ""))
        if stored and matches(data.get("password", ""), stored):
            return data["username"]
        return None
