"""A class's state: what `python -m classroom start` made and chose, kept in STATE/classroom.json
(root's, in the class's state folder) and read by every command and by the hub's configuration.

`ClassState` owns the file's name, its fields and the limits' defaults (`Settings`: measured,
docs/en/classroom.md); `version` says which layout a file has, so a later one can read an
older file. A file written before the version field (version 0) reads as version 1: the same
fields, without the unused `steps_done`.
"""
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

STATE_FILE = "classroom.json"
VERSION = 1


@dataclass
class Settings:
    """The class's limits and options (`start`'s flags; kept, and changeable on resuming)."""
    memory_mb: int = 2048  # per student's server, kernels included
    cpus: float = 1.0
    processes: int = 256  # processes and threads
    home_mb: int = 1024  # each student's home (0: unbounded)
    instructor_memory_mb: int = 8192
    instructor_cpus: float = 2.0
    instructor_processes: int = 2048
    cull_after: int = 3600  # seconds idle before a server is stopped
    ssl_cert: str = ""
    ssl_key: str = ""


@dataclass
class Person:
    login: str
    language: str
    role: str  # "student" or "instructor"


@dataclass
class ClassState:
    name: str  # the class's name: its logins' prefix
    ip: str
    port: int  # the class's public port (the proxy's)
    hub_port: int  # the hub's own, on loopback
    proxy: str  # configurable-http-proxy's path
    python: str  # the course's Python: the hub, the instructors' servers
    exchange: str
    student_env: str
    homes: str  # where the students' bounded homes' images are
    units: list | None  # the units released (None: all)
    staff_group: str
    settings: Settings
    people: list[Person]
    made_users: list[str] = field(default_factory=list)  # the users this class made, in order
    checkout: dict | None = None  # the checkout's group and mode before the class (`remove` puts them back)
    hub_config: str | None = None  # the extra JupyterHub settings, copied into the state folder
    course_folder: str | None = None  # the instructor's course folder
    version: int = VERSION

    @property
    def students(self):
        return [p for p in self.people if p.role == "student"]

    @property
    def instructors(self):
        return [p for p in self.people if p.role == "instructor"]

    @classmethod
    def from_json(cls, data):
        """A state from a classroom.json's contents, of any version so far."""
        data = dict(data)
        version = data.pop("version", 0)
        if version > VERSION:
            raise ValueError(f"classroom.json of version {version}: this classroom reads up to {VERSION}")
        data.pop("steps_done", None)  # version 0's, never read
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"classroom.json has fields this classroom does not know: {', '.join(unknown)}")
        data["settings"] = Settings(**{**dataclasses.asdict(Settings()), **data.get("settings", {})})
        data["people"] = [Person(**p) for p in data.get("people", [])]
        data.setdefault("homes", "")
        return cls(**data)

    def to_json(self):
        return dataclasses.asdict(self)

    @classmethod
    def load(cls, state_folder):
        """The class kept in `state_folder`; None when it holds none."""
        path = Path(state_folder) / STATE_FILE
        if not path.exists():
            return None
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))

    def save(self, state_folder):
        """Written whole, then renamed over the old file: a crash leaves one or the other."""
        path = Path(state_folder) / STATE_FILE
        partial = path.with_name(f".{STATE_FILE}.partial")
        partial.write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
        partial.replace(path)
