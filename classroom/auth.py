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

    def stored_hash(self, login):
        with open(self.hashes_file, encoding="utf-8") as handle:  # a small file, read at each login
            return json.load(handle).get(login)

    async def authenticate(self, handler, data):
        stored = self.stored_hash(data.get("username", ""))
        if stored and matches(data.get("password", ""), stored):
            return data["username"]
        return None
