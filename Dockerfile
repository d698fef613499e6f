# Worker image for infra/docker-compose.yaml.
FROM python:3.11-slim
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir .
CMD ["python", "worker.py"]
