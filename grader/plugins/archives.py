"""Which members of a submission's archive may be extracted.

One rule for the archives an LMS export brings to `nbgrader zip_collect`
(grader/plugins/intake.py) and for a Dask worker unpacking its task on a Python without
tarfile's filters (grader/plugins/worker.py). Standard library only: a worker may run it
before anything else of the course is imported.
"""
from pathlib import PurePosixPath


def member_refusal(name, ordinary, size=0, limit=None):
    """Why an archive's member is not extracted (not an ordinary file or folder, leads out
    of the folder, over `limit` bytes as declared), or None. With no links among the
    members, a relative path without `..` stays inside the folder."""
    if not ordinary:
        return f"{name!r} is not an ordinary file"
    if name.startswith("/") or ".." in PurePosixPath(name).parts:
        return f"{name!r} leads out of the folder"
    if limit is not None and size > limit:
        return f"{name!r} is {size} bytes, over the cap of {limit}"
    return None


# the first bytes that name an archive's format (tar's "ustar" is at offset 257)
MAGIC = ((b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"), (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"),
         (b"\xfd7zXZ\x00", "xz"), (b"7z\xbc\xaf\x27\x1c", "7z"), (b"Rar!\x1a\x07", "rar"))
ARCHIVE_SUFFIXES = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar")


def archive_kind(head):
    """The archive format whose first bytes `head` (at least 262 of them, where the file
    has that many) are, or None: a submission that is an archive is not opened."""
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return kind
    return "tar" if head[257:262] == b"ustar" else None
