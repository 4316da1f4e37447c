"""The demo's login: one password per person, made by `classroom start`.

Each person gets their own random password (never a shared one, which would let any
student log in as another); the hub keeps only salted hashes. A university would use
its own authenticator instead (docs/en/classroom.md).

Wrong passwords are counted per login name *and address*, and per address: someone
guessing a classmate's password from their own machine makes only that machine wait, never
the classmate at theirs. The address is the one the class's proxy saw (the last entry of
X-Forwarded-For, which it appends), read only from a connection the proxy made; headers
anyone else sends, X-Real-Ip included, are never read. Hashes run one at a time, in a
thread, and a login that would wait behind too many is refused without one.
"""
import asyncio
import hashlib
import hmac
import json
import secrets
import time
from concurrent.futures import ThreadPoolExecutor

from jupyterhub.auth import Authenticator
from traitlets import Unicode

from classroom.processes import peer_uid

ROUNDS = 200_000
FREE_TRIES = 5  # wrong passwords for one login name from one address before it must wait
FREE_TRIES_PER_ADDRESS = 50  # an address may be a whole lab behind one router
LONGEST_WAIT = 300  # seconds; the wait doubles with each further wrong password up to this
MOST_WAITING = 100  # logins waiting for a hash (49 ms each, one at a time): about 5 s of them
PROXY_UID = 0  # the class's proxy is root's (classroom/proxy.py); no student makes a root process


def hashed(password, salt=None):
    salt = salt or secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), ROUNDS)
    return f"{salt}${digest.hex()}"


def matches(password, stored):
    salt, _ = stored.split("$", 1)
    return hmac.compare_digest(hashed(password, salt), stored)


class Throttle:
    """Wrong passwords per key (a login name, an address): after `free_tries`, each further
    try waits 2, 4, 8... seconds (at most LONGEST_WAIT) after the last wrong one."""

    def __init__(self, free_tries=FREE_TRIES, clock=time.monotonic):
        self.free_tries, self.clock = free_tries, clock
        self.failures = {}  # key -> (count, time of the last)

    def wait(self, key):
        count, last = self.failures.get(key, (0, 0.0))
        if count < self.free_tries:
            return 0.0
        return max(0.0, last + min(LONGEST_WAIT, 2 ** (count - self.free_tries + 1)) - self.clock())

    def failed(self, key):
        count, _ = self.failures.get(key, (0, 0.0))
        self.failures[key] = (count + 1, self.clock())

    def succeeded(self, key):
        self.failures.pop(key, None)


def client_address(connection_socket, forwarded_for, uid_of=peer_uid):
    """The address a login comes from: for a connection the class's proxy made (its owner
    is root), the last entry of X-Forwarded-For (`forwarded_for`), the one the proxy added;
    for any other, the connection's own address."""
    peer, local = connection_socket.getpeername()[:2], connection_socket.getsockname()[:2]
    last = (forwarded_for or "").split(",")[-1].strip()
    if last and uid_of(peer, local) == PROXY_UID:
        return last
    return peer[0]


class RosterAuthenticator(Authenticator):
    """Accepts a roster's login name with that person's password, nothing else. The hash
    runs in a thread, not on the hub's event loop (49 ms each); repeated wrong passwords
    for one name from one address, or from one address, are refused without hashing until
    their wait is over."""

    hashes_file = Unicode(help="JSON file: login name -> salted password hash").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.throttles = {"name": Throttle(FREE_TRIES), "address": Throttle(FREE_TRIES_PER_ADDRESS)}
        self.unknown = hashed(secrets.token_hex(8))  # unknown names cost a hash too (no timing tell)
        self.hasher, self.waiting = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hash"), 0

    def stored_hash(self, login):
        with open(self.hashes_file, encoding="utf-8") as handle:  # a small file, read at each login
            return json.load(handle).get(login)

    async def authenticate(self, handler, data):
        login, password = data.get("username", ""), data.get("password", "")
        address = client_address(handler.request.connection.stream.socket,
                                 handler.request.headers.get("X-Forwarded-For")) if handler else ""
        keys = {"name": (login, address), "address": address}
        if any(self.throttles[kind].wait(key) > 0 for kind, key in keys.items()):
            self.log.warning("login throttled for %r from %s", login, address)
            return None
        if self.waiting >= MOST_WAITING:
            self.log.warning("login refused without hashing for %r from %s: %i logins waiting",
                             login, address, self.waiting)
            return None
        stored = self.stored_hash(login)
        self.waiting += 1
        try:
            right = await asyncio.get_running_loop().run_in_executor(
                self.hasher, matches, password, stored or self.unknown)
        finally:
            self.waiting -= 1
        for kind, key in keys.items():
            throttle = self.throttles[kind]
            (throttle.succeeded if right and stored else throttle.failed)(key)
        if not (right and stored):
            self.log.warning("wrong password for %r from %s", login, address)
        return login if right and stored else None
