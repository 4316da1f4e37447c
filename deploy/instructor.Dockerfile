# The instructor's single-user image, also the image of the Dask workers that grade: the whole
# course (grader/, source/ with the solutions), so it goes to a PRIVATE registry. Build it at the
# repository root (docs/en/deploy.md):
#
#   docker build -f deploy/instructor.Dockerfile \
#     -t registry.example.org/autograd-by-hand-instructor:2026.1 .
#
# The hub gives it to whoever the LMS launches as Instructor (helm-values.yaml, extraConfig.lms),
# with the course folder's volume at /srv/nbgrader/course; formgrader and nbgrader's instructor
# tools are on, as in stock nbgrader.
FROM quay.io/jupyter/minimal-notebook:2026-11-30

USER root
# bubblewrap: the sandbox every graded kernel runs in, on a Dask worker too
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/*
COPY --chown=${NB_UID}:${NB_GID} . /opt/autograd-by-hand
# JupyterHub's servers forbid every frame unless told otherwise, and JupyterLab shows formgrader
# in a frame of the same server (as the one-machine classroom allows)
RUN mkdir -p "$CONDA_DIR/etc/jupyter/jupyter_server_config.d" \
 && printf '{"ServerApp": {"tornado_settings": {"headers": {"Content-Security-Policy": "frame-ancestors '"'self'"'"}}}}\n' \
      > "$CONDA_DIR/etc/jupyter/jupyter_server_config.d/formgrader-frame.json"

USER ${NB_UID}
WORKDIR /opt/autograd-by-hand
# requirements.txt as on an instructor's machine, then JupyterHub at the chart's version
# (deploy/z2jh/chart.yaml): the hub and the single-user servers must agree
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && pip install --no-cache-dir -r requirements.txt \
 && pip install --no-cache-dir jupyterhub==5.5.0
WORKDIR /home/${NB_USER}
