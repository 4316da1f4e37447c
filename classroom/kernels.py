"""The class's Python kernel: ipykernel with nothing listening on the machine's loopback.

Every process on the machine reaches 127.0.0.1. The hub's servers give their kernels ZMQ
sockets as files in the server's private /tmp (classroom/hub.py: `ipc` transport), but
ipykernel opens two TCP listeners of its own there: a PULL socket for the output of
processes a kernel forks (anyone could connect and send it a frame of any size, which the
kernel takes into memory), and, when the debugger starts, debugpy's server, which runs any
code it is sent. This kernel moves the first to a socket file beside its connection file
(where its other sockets are; in a private folder of its own where that path would be too
long for a socket) and has no debugger: debugpy cannot be imported in it, and
JupyterLab shows no debug button. It is ipykernel's own launch
with two of its methods replaced, inline in the kernel's command (`python -c`), so that it
starts wherever ipykernel does, the grader's sandbox included.

Every server of the class finds it first (the hub sets JUPYTER_PATH to SPEC_FOLDER in the
students' environment): the kernels a person starts in JupyterLab, Validate's and those of
a terminal's nbgrader.
"""
import json
import shutil
import sys
from pathlib import Path

SPEC_FOLDER = Path("share") / "classroom-kernels"  # in the students' environment, for JUPYTER_PATH
LAUNCH = """\
import os, sys, tempfile, uuid
if sys.path and sys.path[0] in ('', os.getcwd()):
    del sys.path[0]
sys.modules['debugpy'] = None  # ipykernel then has no debugger
import zmq
from zmq.eventloop.zmqstream import ZMQStream
from ipykernel import iostream
PIPE = os.path.join(os.path.dirname(os.path.abspath(sys.argv[sys.argv.index('-f') + 1])),
                    'kernel-pipe-' + uuid.uuid4().hex[:12])
if len(PIPE) > 100:  # a socket's path has at most 107 bytes: a folder of its own instead
    PIPE = os.path.join(tempfile.mkdtemp(prefix='kernel-'), 'pipe')
def pipe_in(self):
    self._pipe_uuid = os.urandom(16)
    pull = self.socket.context.socket(zmq.PULL)
    pull.linger = 0
    self._pipe_address = 'ipc://' + PIPE
    pull.bind(self._pipe_address)
    self._pipe_in = ZMQStream(pull, self.io_loop)
    self._pipe_in.on_recv(self._handle_pipe_msg)
def pipe_out(self):
    context = zmq.Context()
    push = context.socket(zmq.PUSH)
    push.linger = 3000
    push.connect(self._pipe_address)
    return context, push
iostream.IOPubThread._setup_pipe_in = pipe_in
iostream.IOPubThread._setup_pipe_out = pipe_out
from ipykernel.kernelapp import launch_new_instance
launch_new_instance()
"""


def write_spec(env, stock=Path(sys.prefix) / "share" / "jupyter" / "kernels" / "python3"):
    """The kernel spec `python3` in ENV/SPEC_FOLDER/kernels, unless it is there already:
    ipykernel's (`stock`: its logos, its name) with LAUNCH as its command. The folder to
    name in JUPYTER_PATH."""
    folder = Path(env) / SPEC_FOLDER
    target = folder / "kernels" / "python3"
    spec = json.loads((stock / "kernel.json").read_text(encoding="utf-8"))
    spec["argv"] = ["python", "-c", LAUNCH, "-f", "{connection_file}"]
    spec.setdefault("metadata", {})["debugger"] = False
    text = json.dumps(spec, indent=1)
    if (target / "kernel.json").is_file() and (target / "kernel.json").read_text(encoding="utf-8") == text:
        return folder
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(stock, target)
    (target / "kernel.json").write_text(text, encoding="utf-8")
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder
