# Worker image for infra/docker-compose.yaml. The worker runs as an unprivileged user, and every agent it launches
# runs in a bubblewrap sandbox inside that (activities/executors/sandbox.py): bubblewrap is part of the image, and
# it needs user namespaces, which infra/docker-compose.yaml allows the worker container. Its work directory is its
# own, owner-only.
FROM python:3.11-slim
WORKDIR /app
COPY . .
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/* \
    && pip install --no-cache-dir . \
    && useradd --system --uid 10001 --create-home --home-dir /home/office office \
    && install -d -m 0700 -o office -g office /home/office/.local/state/office
USER 10001:10001
ENV OFFICE_WORK_DIR=/home/office/.local/state/office/work
CMD ["python", "worker.py"]
