"""What the cluster gives the hub that one machine does not: a pod. KubeSpawner itself, up to
the pod it would send to Kubernetes; there, the pod's first container runs here as a process
instead: the pod's environment (as the chart's code and the values' hooks made it), its postStart
hook, then, in place of the container's command, `server_script`, which answers as the person's
server. The pod's manifest is written into the person's folder (pod.json).

Loaded by the hub tests/test_deploy.py starts with the chart's jupyterhub_config.py, in the
chart's JupyterHub and KubeSpawner (.venv-chart); KubeSpawner is given a kubeconfig for an
address nothing answers, and its watchers of the cluster never start.
"""
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from kubernetes_asyncio.client import ApiClient
from kubespawner import KubeSpawner
from traitlets import Unicode


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PodStandIn(KubeSpawner):
    homes = Unicode(help="where each person's folder (their home here) is made").tag(config=True)
    server_script = Unicode(help="what runs in place of the container's command").tag(config=True)
    process = None

    async def start(self):
        self.ip, self.port = "127.0.0.1", free_port()
        pod = await self.get_pod_manifest()
        if self.modify_pod_hook:
            pod = await self.modify_pod_hook(self, pod)
        serializer = ApiClient()
        manifest = serializer.sanitize_for_serialization(pod)
        await serializer.close()
        container = manifest["spec"]["containers"][0]
        home = Path(self.homes) / self.user.name
        home.mkdir(parents=True, exist_ok=True)
        (home / "pod.json").write_text(json.dumps(manifest))
        env = {variable["name"]: variable.get("value", "") for variable in container["env"]}
        env.update(HOME=str(home), PATH=os.environ["PATH"])
        post_start = container["lifecycle"]["postStart"]["exec"]["command"][-1]
        self.process = subprocess.Popen(["sh", "-c", post_start +  # noqa: ASYNC220 (it returns at once)
                                         ' && exec "$0" "$1"', sys.executable,
                                         self.server_script], env=env, start_new_session=True)
        return f"http://127.0.0.1:{self.port}"

    async def poll(self):
        return None if self.process is not None and self.process.poll() is None else 0

    async def stop(self, now=False):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
