# Worker image for infra/docker-compose.yaml. The worker runs as an unprivileged user: an agent it launches runs
# with the worker's rights, so never as root. Its work directory is its own, owner-only.
FROM python:3.11-slim
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir . \
    && useradd --system --uid 10001 --create-home --home-dir /home/office office \
    && install -d -m 0700 -o office -g office /home/office/.local/state/office
USER 10001:10001
ENV OFFICE_WORK_DIR=/home/office/.local/state/office/work
CMD ["python", "worker.py"]
